// SPDX-License-Identifier: MIT
// Test seams of the Vulkan back-end (test/support/gpu.cpp sets them from the environment).
#pragma once

namespace ripple::vk {

// Devices created from now on take the fence tickets of Vulkan 1.1 drivers without timeline semaphores
// (fence_tickets.cpp), whatever the adapter offers: RIPPLE_TEST_TICKETS=fences runs the ticket, recorder and
// replay tests that way on lavapipe.
void setFenceTicketsForTests(bool on);
bool fenceTicketsForTests();
// Buffers created from now on are mapped only where ripple asks for host-visible memory, as on a discrete
// GPU: Device::upload and download of device-local buffers then copy through staging on lavapipe too
// (buffers.cpp). On by default.
void setMappedTransfersForTests(bool on);

} // namespace ripple::vk
