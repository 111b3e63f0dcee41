// SPDX-License-Identifier: MIT
// Errors as values: ripple never throws and builds with -fno-exceptions.
#pragma once

#include "ripple/export.hpp"

#include <cstdint>
#include <new>
#include <string>
#include <utility>

namespace ripple {

enum class StatusCode : uint32_t {
    Ok = 0,
    InvalidArgument, // a desc, tensor or binding breaks a rule; the message names it and the rule
    Unsupported,     // valid, but this build or device cannot run it (the message names the feature)
    IndexOutOfRange, // index data outside [-size, size) was found on the GPU; those updates were dropped
    OutOfMemory,     // a host or device allocation failed
    NoDevice,        // no Vulkan loader, no adapter, or the chosen adapter index does not exist
    DeviceLost,      // the device was lost; every later call on it fails
    Timeout,         // the GPU did not finish in time
    Internal,        // a Vulkan call failed unexpectedly; the message names it
};

RIPPLE_API const char* toString(StatusCode code);

// A code and a one-line message, e.g. "TopK: K (5) exceeds InputTensor.Sizes[1] (4)".
class [[nodiscard]] Status {
  public:
    Status() = default;
    Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

    bool ok() const { return code_ == StatusCode::Ok; }
    explicit operator bool() const { return ok(); }
    StatusCode code() const { return code_; }
    const std::string& message() const { return message_; }

  private:
    StatusCode code_ = StatusCode::Ok;
    std::string message_;
};

// Either a value or a non-Ok Status. Check ok() before value().
template <class T> class [[nodiscard]] Result {
  public:
    Result(T value) : status_(), hasValue_(true) { new (&storage_) T(std::move(value)); }
    Result(Status status) : status_(std::move(status)) {
        if (status_.ok())
            status_ = Status(StatusCode::Internal, "Result built from an Ok status without a value");
    }
    Result(Result&& other) noexcept : status_(std::move(other.status_)), hasValue_(other.hasValue_) {
        if (hasValue_) new (&storage_) T(std::move(other.value()));
    }
    Result& operator=(Result&& other) noexcept {
        if (this != &other) {
            reset();
            status_ = std::move(other.status_);
            hasValue_ = other.hasValue_;
            if (hasValue_) new (&storage_) T(std::move(other.value()));
        }
        return *this;
    }
    Result(const Result&) = delete;
    Result& operator=(const Result&) = delete;
    ~Result() { reset(); }

    bool ok() const { return hasValue_; }
    explicit operator bool() const { return ok(); }
    const Status& status() const { return status_; }
    T& value() & { return *reinterpret_cast<T*>(&storage_); }
    const T& value() const& { return *reinterpret_cast<const T*>(&storage_); }
    T&& value() && { return std::move(*reinterpret_cast<T*>(&storage_)); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }

  private:
    void reset() {
        if (hasValue_) value().~T();
        hasValue_ = false;
    }
    Status status_;
    bool hasValue_ = false;
    alignas(T) unsigned char storage_[sizeof(T)];
};

} // namespace ripple
