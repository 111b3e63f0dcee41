// SPDX-License-Identifier: MIT
// Result::value() on an error stops at an assert in a debug build (this file is compiled without NDEBUG);
// CTest expects the assert's message.
#include "ripple/status.hpp"

int main() {
    ripple::Result<int> r = ripple::Status(ripple::StatusCode::InvalidArgument, "createBuffer: 0 bytes");
    return r.value();
}
