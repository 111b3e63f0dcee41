// SPDX-License-Identifier: MIT
// How ripple's own code (and its white-box tests) reaches a public object's state: the public classes keep
// it private and befriend detail::ImplAccess alone, so users cannot depend on it (issue 44).
#pragma once

namespace ripple::detail {

struct ImplAccess {
    template <class T> static auto& impl(T& object) { return object.impl_; } // const T: a const pointer
};

/// The pointer to `object`'s implementation (a DeviceImpl for a Device, ...), null when it is empty.
template <class T> auto& impl(T& object) {
    return ImplAccess::impl(object);
}

} // namespace ripple::detail
