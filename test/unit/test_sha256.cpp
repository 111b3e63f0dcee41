// SPDX-License-Identifier: MIT
// The kernel cache's hash (tools/ripple-embed/sha256.hpp) against FIPS 180-4's test vectors.
#include "sha256.hpp"

#include <catch2/catch.hpp>

#include <string>

namespace {
std::string sha256(const std::string& text, size_t chunk = 0) {
    ripple_embed::Sha256 h;
    if (chunk == 0) h.add(text);
    for (size_t at = 0; chunk && at < text.size(); at += chunk) h.add(text.substr(at, chunk));
    return h.hex();
}
} // namespace

TEST_CASE("SHA-256 gives FIPS 180-4's digests, whatever the pieces it is fed in", "[unit]") {
    CHECK(sha256("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CHECK(sha256("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const std::string two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    CHECK(sha256(two) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    CHECK(sha256(two, 7) == sha256(two));
    const std::string million(1000000, 'a');
    CHECK(sha256(million, 4096) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    ripple_embed::Sha256 a, b; // fields are length-prefixed: ("ab", "c") is not ("a", "bc")
    a.field("ab"), a.field("c"), b.field("a"), b.field("bc");
    CHECK(a.hex() != b.hex());
}
