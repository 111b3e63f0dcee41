// SPDX-License-Identifier: MIT
/// @file
/// @brief Errors as values: Status and Result. ripple never throws and builds with -fno-exceptions.
#pragma once

#include "ripple/export.hpp"

#include <cassert>
#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace ripple {

/// What went wrong, in kinds a caller can act on. Every error also carries a one-line message.
enum class StatusCode : uint32_t {
    Ok = 0,          ///< success
    InvalidArgument, ///< a desc, tensor or binding breaks a rule; the message names it and the rule
    Unsupported,     ///< valid, but this build or device cannot run it (the message names the feature)
    IndexOutOfRange, ///< index data outside [-size, size) was found on the GPU; those updates were dropped
    OutOfMemory,     ///< a host or device allocation failed
    NoDevice,        ///< no Vulkan loader, no adapter, or the chosen adapter index does not exist
    DeviceLost,      ///< the device was lost; every later call on it fails
    Timeout,         ///< the GPU did not finish in time
    Internal,        ///< a Vulkan or D3D12 call failed unexpectedly; the message names it
};

/// The code's name, e.g. "InvalidArgument". Never null. Thread safety: any thread.
RIPPLE_API const char* toString(StatusCode code);

/// A code and a one-line message, e.g. "TopK: K (5) exceeds InputTensor.Sizes[1] (4)". Ok when
/// default-constructed. `[[nodiscard]]`: ignoring one is a compiler warning. Copyable; thread safety as
/// for any value type.
class [[nodiscard]] Status {
  public:
    /// An Ok status.
    Status() = default;
    /// A status with `code` and `message` (one line naming the argument and the rule). A message longer
    /// than kMaxMessageBytes (a user's string echoed whole, say) keeps its first bytes, cut on a UTF-8
    /// boundary, and ends with " [... N bytes cut]".
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {
        if (message_.size() > kMaxMessageBytes) cut();
    }
    /// The longest message a Status keeps, in bytes (its mark of what was cut included).
    static constexpr size_t kMaxMessageBytes = 1024;

    /// @return whether the code is StatusCode::Ok.
    bool ok() const { return code_ == StatusCode::Ok; }
    /// @return ok(), so that `if (!status)` reads as "on error".
    explicit operator bool() const { return ok(); }
    /// @return the code.
    StatusCode code() const { return code_; }
    /// @return the message; empty when Ok.
    const std::string& message() const { return message_; }

  private:
    void cut() {
        size_t keep = kMaxMessageBytes - 40; // room for the mark
        while (keep > 0 && (static_cast<unsigned char>(message_[keep]) & 0xC0) == 0x80) --keep;
        const std::string mark = " [... " + std::to_string(message_.size() - keep) + " bytes cut]";
        message_.resize(keep);
        message_ += mark;
    }
    StatusCode code_ = StatusCode::Ok;
    std::string message_;
};

/// Either a value of type `T` or a non-Ok Status: what every fallible ripple function returns.
/// Check ok() (or `if (result)`) before value(). Move-only.
/// @tparam T the value's type (move-constructible).
template <class T> class [[nodiscard]] Result {
  public:
    /// A result holding `value`.
    Result(T value) : status_(), hasValue_(true) { new (&storage_) T(std::move(value)); }
    /// A result holding the error `status`. An Ok `status` (a caller's mistake) becomes
    /// StatusCode::Internal, so a Result is never Ok without a value.
    Result(Status status) : status_(std::move(status)) {
        if (status_.ok())
            status_ = Status(StatusCode::Internal, "Result built from an Ok status without a value");
    }
    /// Moves `other`'s value or status into a new result; `other` keeps a moved-from value.
    Result(Result&& other) noexcept : status_(std::move(other.status_)), hasValue_(other.hasValue_) {
        if (hasValue_) new (&storage_) T(std::move(*other.get()));
    }
    /// Replaces this result's content with `other`'s.
    Result& operator=(Result&& other) noexcept {
        if (this != &other) {
            reset();
            status_ = std::move(other.status_);
            hasValue_ = other.hasValue_;
            if (hasValue_) new (&storage_) T(std::move(*other.get()));
        }
        return *this;
    }
    Result(const Result&) = delete;            ///< Move-only.
    Result& operator=(const Result&) = delete; ///< Move-only.
    ~Result() { reset(); }                     ///< Destroys the value, if any.

    /// @return whether a value is held.
    bool ok() const { return hasValue_; }
    /// @return ok().
    explicit operator bool() const { return ok(); }
    /// @return the error, or an Ok status when a value is held.
    const Status& status() const { return status_; }
    /// The value. Precondition: ok(). On an error, debug builds (without NDEBUG) stop at an assert;
    /// release builds have undefined behaviour, like std::optional::operator*.
    T& value() & { return *checked(); }
    /// The value (const). Precondition: ok(), as value().
    const T& value() const& { return *checked(); }
    /// The value, moved out. Precondition: ok(), as value().
    T&& value() && { return std::move(*checked()); }
    /// Member access to the value. Precondition: ok(), as value().
    T* operator->() { return checked(); }
    /// Member access to the value (const). Precondition: ok(), as value().
    const T* operator->() const { return checked(); }

  private:
    T* get() { return reinterpret_cast<T*>(&storage_); }
    const T* get() const { return reinterpret_cast<const T*>(&storage_); }
    T* checked() {
        assert(hasValue_ && "ripple::Result::value() on an error: check ok() first");
        return get();
    }
    const T* checked() const {
        assert(hasValue_ && "ripple::Result::value() on an error: check ok() first");
        return get();
    }
    void reset() {
        if (hasValue_) get()->~T();
        hasValue_ = false;
    }
    Status status_;
    bool hasValue_ = false;
    alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace ripple
