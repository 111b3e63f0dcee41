// SPDX-License-Identifier: MIT
// Small API contracts: the version, Result's states, Status's bounded messages, and size arithmetic that
// saturates instead of wrapping.
#include "ripple/ripple.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace ripple;

TEST_CASE("version() is the version the headers name", "[unit][api]") {
    const Version v = version();
    CHECK(v.major == RIPPLE_VERSION_MAJOR);
    CHECK(v.minor == RIPPLE_VERSION_MINOR);
    CHECK(v.patch == RIPPLE_VERSION_PATCH);
    const std::string text =
        std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
    CHECK(text == RIPPLE_VERSION_STRING);
}

TEST_CASE("Result holds a value or an error, never an Ok error", "[unit][api]") {
    Result<std::string> good = std::string("value");
    REQUIRE(good.ok());
    CHECK(good.status().ok());
    CHECK(good.value() == "value");
    CHECK(good->size() == 5);
    Result<std::string> moved = std::move(good);
    CHECK(moved.value() == "value");

    Result<std::string> bad = Status(StatusCode::InvalidArgument, "x: y");
    CHECK_FALSE(bad.ok());
    CHECK_FALSE(static_cast<bool>(bad));
    CHECK(bad.status().code() == StatusCode::InvalidArgument);
    CHECK(bad.status().message() == "x: y");

    Result<int> okWithoutValue = Status(); // a caller's mistake becomes an error
    CHECK_FALSE(okWithoutValue.ok());
    CHECK(okWithoutValue.status().code() == StatusCode::Internal);

    bad = std::move(moved);
    REQUIRE(bad.ok());
    CHECK(bad.value() == "value");
}

TEST_CASE("A Status message is bounded: a long one is cut on a UTF-8 boundary and says how much was cut",
          "[unit][api]") {
    const Status small(StatusCode::InvalidArgument, "short");
    CHECK(small.message() == "short");
    const std::string exact(Status::kMaxMessageBytes, 'a');
    CHECK(Status(StatusCode::InvalidArgument, exact).message() == exact);
    for (size_t lead : {0u, 1u, 2u, 3u}) { // shifts a 4-byte character across the cut
        std::string text(lead, 'x');
        while (text.size() < 3 * Status::kMaxMessageBytes) text += "\xF0\x9F\x98\x80"; // U+1F600
        const Status s(StatusCode::Timeout, text);
        INFO("lead " << lead);
        CHECK(s.code() == StatusCode::Timeout);
        CHECK(s.message().size() <= Status::kMaxMessageBytes);
        const size_t mark = s.message().find(" [... ");
        REQUIRE(mark != std::string::npos);
        CHECK(text.compare(0, mark, s.message(), 0, mark) == 0);        // a prefix of the original
        CHECK((static_cast<unsigned char>(text[mark]) & 0xC0) != 0x80); // cut before a character starts
        CHECK(s.message().substr(mark) == " [... " + std::to_string(text.size() - mark) + " bytes cut]");
    }
}

TEST_CASE("Tensor sizes that overflow saturate instead of wrapping to a small tensor", "[unit][api]") {
    TensorDesc huge{DataType::Float32, {65536, 65536, 65536, 65536}, {}};
    CHECK(huge.elementCount() == UINT64_MAX);
    CHECK(calcBufferTensorSize(huge) == UINT64_MAX);
    TensorDesc wraps{DataType::Float32, {4294967295u, 4294967295u, 3, 2863311531u}, {}};
    CHECK(wraps.elementCount() == UINT64_MAX);
    CHECK(calcBufferTensorSize(wraps) == UINT64_MAX);
    const std::vector<uint32_t> strides = packedStrides({7, 65536, 65536, 2}); // 2^33 clamps
    CHECK(strides == std::vector<uint32_t>{UINT32_MAX, 131072, 2, 1});
    TensorDesc big{DataType::UInt8, {3, 65536, 65536}, {}}; // 12 GiB: fits 64 bits, not 32
    CHECK(calcBufferTensorSize(big) == 3ull * 65536 * 65536);
    TensorDesc strided{DataType::Int16, {2, 3}, {10, 1}};
    CHECK(calcBufferTensorSize(strided) == 28); // (1*10 + 2*1 + 1) * 2 = 26, rounded up to 28
    TensorDesc malformed{DataType::Int16, {2, 3}, {1}};
    CHECK(calcBufferTensorSize(malformed) == UINT64_MAX);
    TensorDesc empty{DataType::Float32, {4, 0, 4}, {}};
    CHECK(calcBufferTensorSize(empty) == 0);
}
