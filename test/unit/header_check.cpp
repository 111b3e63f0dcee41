// SPDX-License-Identifier: MIT
// Built with -std=c++17 -fno-exceptions -Werror: the public API must compile that way on its own.
#include "ripple/ripple.hpp"

#if defined(VK_VERSION_1_0) || defined(__d3d12_h__) || defined(_WINDOWS_)
#error "a public ripple header pulled in a graphics or Windows header"
#endif

int rippleHeaderCheck() {
    ripple::TopKDesc desc;
    desc.InputTensor = {ripple::DataType::Float16, {2, 3}, {}};
    ripple::Result<int> r = ripple::Status(ripple::StatusCode::InvalidArgument, "x");
    return r.ok() ? 0 : static_cast<int>(ripple::calcBufferTensorSize(desc.InputTensor));
}
