// SPDX-License-Identifier: MIT
// Which D3D12 headers: Windows' own (SDK, MinGW or DirectX-Headers) on Windows; vkd3d's on Linux, where
// vkd3d implements D3D12 over Vulkan (its COM methods use the ms_abi its own headers declare, so calling it
// through Microsoft's headers breaks; docs/D3D12.md, "What is verified where").
#pragma once

#ifndef NOMINMAX
#define NOMINMAX
#endif
// widl-generated headers (vkd3d's, MinGW's) declare COM methods that return structs, such as
// GetCPUDescriptorHandleForHeapStart, with the ABI D3D12 really uses only when this is defined; without it
// the call reads a garbage handle. Microsoft's SDK headers ignore it.
#ifndef WIDL_EXPLICIT_AGGREGATE_RETURNS
#define WIDL_EXPLICIT_AGGREGATE_RETURNS
#endif

// These includes must stay in this order (winadapter.h before d3d12.h).
// clang-format off
#if defined(_WIN32)
#include <windows.h>
#include <d3d12.h>
#include <d3dcompiler.h>
#include <dxgi1_6.h>
#define RIPPLE_D3D12_WINDOWS 1
#elif defined(RIPPLE_D3D12_DIRECTX_HEADERS)
// A compile-only check of the back-end against Microsoft's DirectX-Headers (their Linux/WSL flavour,
// Debian's directx-headers-dev); there is nothing on Linux to link it with.
#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#define RIPPLE_D3D12_WINDOWS 0
#else
#include <vkd3d_utils.h>
#define RIPPLE_D3D12_WINDOWS 0
#endif
// clang-format on
