// SPDX-License-Identifier: MIT
/// @file
/// @brief ripple: DirectML's ScatterND, ScatterElements and TopK with DirectML's exact semantics, on any GPU.
#pragma once

#include "ripple/buffer.hpp"
#include "ripple/device.hpp"
#include "ripple/kernel.hpp"
#include "ripple/operators.hpp"
#include "ripple/recorder.hpp"
#include "ripple/recording.hpp"
#include "ripple/status.hpp"
#include "ripple/tensor.hpp"
#include "ripple/version.hpp"
