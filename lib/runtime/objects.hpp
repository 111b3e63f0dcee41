// SPDX-License-Identifier: MIT
// The objects behind the public handles, shared by the runtime's files.
#pragma once

#include "core/plan.hpp"
#include "kernels/round_trip.hpp"
#include "runtime/backend.hpp"

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace ripple::detail {

struct BufferImpl;

// A submitted recording, until its ticket completes and its reports are read.
struct Submission {
    struct Op {
        std::string label;
        BackendBuffer* statusBuffer = nullptr; // host-visible; word at statusOffset, 0 = fine
        uint64_t statusOffset = 0;
        int32_t firstLevel = -1, lastLevel = -1; // levels of its first and last command (see LevelPlanner)
        struct Profiled { // RecorderOptions::profile: a dispatch's workgroup records, host-visible
            const char* kernel;
            uint32_t level, groups;
            std::shared_ptr<BackendBuffer> records;
        };
        std::vector<Profiled> profiled;
    };
    std::vector<Op> ops;
    // A Recording's submission: its ops, shared rather than copied (a 1000-operator copy cost the submit
    // tens of microseconds); when set, `ops` is empty.
    std::shared_ptr<const std::vector<Op>> sharedOps;
    const std::vector<Op>& allOps() const { return sharedOps ? *sharedOps : ops; }
    std::vector<std::shared_ptr<void>> keepAlive; // buffers and operators used, alive until completion
    std::vector<std::shared_ptr<BackendBuffer>> statusChunks;
    std::vector<std::unique_ptr<BackendBuffer>> scratch;       // back to the device's pool on completion
    std::vector<std::unique_ptr<BackendBuffer>> zeroedScratch; // back to the zeroed pool on completion
    struct Readback {
        std::shared_ptr<BackendBuffer> staging; // host-visible
        void* destination;
        uint64_t size;
    };
    std::vector<Readback> readbacks; // copied to the host on completion
    bool countedReadbacks = false;   // counted in DeviceImpl::readbackSubmissions until delivered
    // The engine's timeline semaphores or fences it signals: complete only once they read as reached.
    std::vector<ExternalSync::Signal> signals;
    bool finished = false;
    std::vector<OperatorReport> reports;
    Status first; // the first non-Ok report
};

struct DeviceImpl {
    std::unique_ptr<BackendDevice> backend;
    DeviceOptions options;
    uint64_t bindingAlignment = 16;
    // Tests only: the HLSL round trip installed when the device was made (kernels/round_trip.hpp).
    const kernels::RoundTripTable* roundTrip = nullptr;

    std::mutex mutex;        // guards what follows
    uint64_t lastTicket = 0; // the latest ticket submit returned; later ones were never issued
    std::map<uint64_t, Submission> submissions;
    // Tickets of `submissions` not yet finished, and how many are: finish() visits only those, not the
    // 256 kept reports (walking them cost a third of execute()'s instructions, bench/NOTES.md "Issue 19,
    // continued: execute()'s host work").
    std::set<uint64_t> unfinished;
    size_t finishedCount = 0;
    std::map<uint64_t, Submission> external; // recorded into engine command buffers, by PendingWork id
    uint64_t nextExternal = 1;
    std::multimap<uint64_t, std::unique_ptr<BackendBuffer>> scratchPool; // by size
    // Buffers that are all zero whenever no submission holds them (core::BindingKind::ZeroedScratch).
    std::multimap<uint64_t, std::unique_ptr<BackendBuffer>> zeroedPool;
    // Host-visible chunks of status words, all zero, for the next recordings (RecorderImpl::statusSlot).
    std::vector<std::shared_ptr<BackendBuffer>> statusPool;
    // Submissions in flight with readbacks: settle() looks for completed ones only while there are some.
    std::atomic<uint32_t> readbackSubmissions{0};
    // Indirect dispatches that launched nothing: their GPU-written group counts broke the bound
    // (DeviceOptions::maxDispatchWorkgroups) or a device limit (Device::refusedDispatchCount).
    std::atomic<uint64_t> refusedDispatches{0};

    // A scratch buffer of at least `bytes` from `pool`, or a new one (then `created` is set).
    Result<std::unique_ptr<BackendBuffer>>
    acquireScratch(uint64_t bytes, std::multimap<uint64_t, std::unique_ptr<BackendBuffer>>& pool,
                   bool* created = nullptr);
    // Turns every submission up to `ticket` (complete) into reports and releases what it held.
    void finish(uint64_t ticket);
    // Delivers the readbacks of submissions that completed, however their completion was seen (an engine's
    // semaphore or fence): every public Device call that may follow one starts here. Cheap when none wait.
    void settle();
    // Waits until no submission in flight uses `buffer` (its last ticket), up to `timeoutNs`: Timeout naming
    // `what`. Sets *leftNs to what is left of the timeout.
    Status waitForBuffer(const char* what, const BufferImpl& buffer, uint64_t timeoutNs, uint64_t* leftNs);
    // Keeps what a submitted ticket needs until it finishes (its reports, what it holds alive).
    void track(uint64_t ticket, Submission submission);
    // The same for one submission, given its timestamps; caller holds `mutex`. Returns what to release
    // outside the lock.
    std::vector<std::shared_ptr<void>> finishOne(Submission& s, const std::vector<uint64_t>& times);
};

struct BufferImpl {
    std::shared_ptr<DeviceImpl> device;
    uint64_t id = 0; // unique in the process and never reused (runtime/replay.hpp keys on it)
    std::unique_ptr<BackendBuffer> buffer;
    std::atomic<uint64_t> lastTicket{0}; // the latest submission that uses it (stampBuffer)
};

struct ReplayCache;

struct OperatorImpl {
    std::shared_ptr<DeviceImpl> device;
    core::Plan plan;
    std::vector<const kernels::KernelInfo*> kernels; // one per dispatch
    std::unique_ptr<BackendBuffer> params;
    std::shared_ptr<ReplayCache> replay; // Device::execute's kept recordings (runtime/replay.hpp)
};

// A user kernel on one device (Device::compile(KernelDesc), runtime/kernel.cpp): the registry entry the
// back-ends take, made from the KernelSource, under a name unique to the source.
struct KernelImpl {
    std::shared_ptr<DeviceImpl> device;
    const KernelSource* source = nullptr;
    std::string name; // "user:<Name>@<source address>": pipelines are keyed by name
    kernels::KernelInfo info{};
};

// The device features a kernel's Feature bits stand for, and their names (runtime/device.cpp).
uint32_t featureBits(const AdapterFeatures& features);
// A user's KernelSource against its unpacked SPIR-V (runtime/kernel.cpp): InvalidArgument naming the field
// that disagrees. Needs s.Name set.
Status checkKernelSource(const KernelSource& s, const std::vector<uint32_t>& words);
std::string featureNames(uint32_t bits);
// The first device limit a kernel variant exceeds, named with its numbers; empty when it fits.
std::string exceededLimit(const kernels::KernelInfo& kernel, const AdapterFeatures& features);
// The fastest variant of a dispatch's kernel the device can run (runtime/variants.cpp): under the tests'
// HLSL round trip (kernels/round_trip.hpp), the portable variants with a D3D12 form only. `op` names the
// operator in errors; *overLimit is set when the refusal is for a limit (else a feature is missing).
Result<const kernels::KernelInfo*> chooseKernel(const core::PlanDispatch& d, const DeviceImpl& dev,
                                                const char* op, bool* overLimit);

// Marks `buffer` as used by `ticket` (BufferImpl::lastTicket, what Device::upload and download wait for),
// right after its submission; only a later ticket replaces an earlier one (one queue completes in order).
inline void stampBuffer(BufferImpl& buffer, uint64_t ticket) {
    uint64_t seen = buffer.lastTicket.load(std::memory_order_relaxed);
    while (seen < ticket && !buffer.lastTicket.compare_exchange_weak(seen, ticket)) {
    }
}

// A public Buffer around a backend buffer (created, or an engine's wrapped).
Buffer makeBuffer(const std::shared_ptr<DeviceImpl>& device, std::unique_ptr<BackendBuffer> buffer);

// A public Device around a backend device (created, or adopted from an engine).
Device makeDevice(std::unique_ptr<BackendDevice> backend, const DeviceOptions& options);

// Checks bindings against an operator's tensors (count, buffer, alignment, bounds, aliasing); returns the
// byte size of each tensor.
Result<std::vector<uint64_t>> checkBindings(const DeviceImpl& device, const core::Plan& plan,
                                            const std::vector<TensorBinding>& bindings);

} // namespace ripple::detail
