// SPDX-License-Identifier: MIT
// ripple-particles: a particle system recorded once and replayed every frame (docs/FRAME_LOOP.md): tick.comp
// advances the frame and the live particle count on the GPU; advect.comp, dispatched indirectly by that
// count, moves the live particles; a ScatterElements ADD splats them into a density grid and a TopK picks
// the fastest, both with the live count as CountTensor; a TopK picks the densest cells; shade.comp draws.
// On Vulkan each frame's submission waits on a timeline semaphore that the sample's "render" stand-in (the
// host, standing in for an engine's graphics queue) signals once the previous frame was "presented".
// Prints each pass's GPU time and the host's time a frame, and writes the last frame as a PNG. With
// --check, every frame is compared with the CPU model (model.hpp).
//
//   ripple-particles [--particles N] [--width W] [--height H] [--k K] [--frames F] [--mass int|float]
//                    [--deterministic] [--png PATH] [--check] [--hlsl-round-trip] [--validation]
//                    [--backend vulkan|d3d12] [--in-flight N] [--advect direct|indirect] [--no-fastest]
//                    [--no-render-wait]
// --in-flight N (1 to 4, default 2; 1 with --check): frames submitted before the oldest is waited for, each
// its own Recording of the same commands, as an engine keeps frames in flight. --no-render-wait: submissions
// wait on no semaphore (to measure what the wait costs).
// Exit status: 0 done (and matching), 1 a failure or a mismatch, 2 bad arguments.
#include "model.hpp"
#include "png_writer.hpp"
#include "simulation.hpp"

#include <ripple/interop/vulkan.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>

namespace {

int usage(const char* why) {
    std::fprintf(
        stderr,
        "ripple-particles: %s\nusage: ripple-particles [--particles N] [--width W] [--height H] [--k K] "
        "[--frames F] [--mass int|float] [--deterministic] [--png PATH] [--check] [--hlsl-round-trip] "
        "[--validation] [--backend vulkan|d3d12] [--in-flight N] [--advect direct|indirect] [--no-fastest] "
        "[--no-render-wait]\n",
        why);
    return 2;
}

bool number(const char* text, uint32_t& out) {
    if (!text || !*text || *text == '-') return false;
    errno = 0;
    char* end = nullptr;
    const unsigned long long v = std::strtoull(text, &end, 10);
    if (errno || *end || v > 0xFFFFFFFFull) return false;
    out = static_cast<uint32_t>(v);
    return true;
}

int fail(const ripple::Status& s) {
    std::fprintf(stderr, "ripple-particles: %s\n", s.message().c_str());
    return 1;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Compares the frame with the model; prints the first difference.
bool matches(const particles::Simulation& sim, const particles::Model& model, uint32_t frame, bool exact) {
    std::vector<uint32_t> grid, values, indices, image, fastIndices;
    std::vector<int32_t> fastValues;
    uint32_t alive = 0;
    if (!sim.grid(grid) || !sim.top(values, indices) || !sim.image(image) || !sim.alive(alive) ||
        !sim.fastest(fastValues, fastIndices))
        return false;
    if (alive != model.alive())
        return std::fprintf(stderr, "frame %u: %u live particles, the model's %u\n", frame, alive,
                            model.alive()),
               false;
    if (sim.config().fastest && (fastValues != model.fastValues() || fastIndices != model.fastIndices()))
        return std::fprintf(stderr, "frame %u: the fastest particles differ from the model's\n", frame),
               false;
    for (size_t i = 0; i < grid.size(); ++i) {
        bool same = grid[i] == model.grid()[i];
        if (!exact) { // FLOAT32 sums in another order: the last places may differ
            float a, b;
            std::memcpy(&a, &grid[i], 4);
            std::memcpy(&b, &model.grid()[i], 4);
            same = std::fabs(a - b) <= 1e-5f * std::fabs(b);
        }
        if (!same)
            return std::fprintf(stderr, "frame %u: grid cell %zu is 0x%08x, the model's 0x%08x\n", frame, i,
                                grid[i], model.grid()[i]),
                   false;
    }
    if (!exact) return true; // TopK and image follow sums that may differ in the last place
    if (values != model.topValues() || indices != model.topIndices())
        return std::fprintf(stderr, "frame %u: the TopK differs from the model's\n", frame), false;
    if (image != model.image())
        return std::fprintf(stderr, "frame %u: the image differs from the model's\n", frame), false;
    return true;
}

// The sample's "render" stand-in on Vulkan: a timeline semaphore of ripple's own device (through
// interop::vulkanHandles) that the host signals once a frame has been "presented", as an engine's graphics
// queue would. No semaphore on D3D12, or on a device without timeline semaphores.
struct RenderStandIn {
    VkDevice device = VK_NULL_HANDLE;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    PFN_vkSignalSemaphore signal = nullptr;
    PFN_vkDestroySemaphore destroy = nullptr;

    ripple::Status create(ripple::Device& ripple) {
        if (ripple.adapter().backend != ripple::Backend::Vulkan ||
            !ripple.adapter().features.timelineSemaphore)
            return {};
        auto h = ripple::interop::vulkanHandles(ripple);
        if (!h) return h.status();
        device = h->device;
        auto load = [&](const char* name) { return h->getDeviceProcAddr(device, name); };
        auto create = reinterpret_cast<PFN_vkCreateSemaphore>(load("vkCreateSemaphore"));
        destroy = reinterpret_cast<PFN_vkDestroySemaphore>(load("vkDestroySemaphore"));
        signal = reinterpret_cast<PFN_vkSignalSemaphore>(load("vkSignalSemaphore"));
        if (!signal) signal = reinterpret_cast<PFN_vkSignalSemaphore>(load("vkSignalSemaphoreKHR"));
        if (!create || !destroy || !signal)
            return ripple::Status(ripple::StatusCode::Unsupported,
                                  "no vkCreateSemaphore or vkSignalSemaphore");
        VkSemaphoreTypeCreateInfo type{};
        type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
        type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
        type.initialValue = 1; // frame 0 waits for nothing to present
        VkSemaphoreCreateInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
        info.pNext = &type;
        if (create(device, &info, nullptr, &semaphore) != VK_SUCCESS)
            return ripple::Status(ripple::StatusCode::Internal, "vkCreateSemaphore failed");
        return {};
    }
    // Frame `frame` presented: frame + 1 may start (it waits for value frame + 2; frame 0 for the initial 1).
    void present(uint32_t frame) {
        VkSemaphoreSignalInfo info{};
        info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
        info.semaphore = semaphore;
        info.value = uint64_t(frame) + 2;
        signal(device, &info);
    }
    ~RenderStandIn() {
        if (semaphore) destroy(device, semaphore, nullptr); // every submission that waited on it completed
    }
};

} // namespace

int main(int argc, char** argv) {
    particles::Config config;
    uint32_t frames = 60, inFlight = 2;
    bool renderWait = true;
    std::string png;
    bool check = false;
    ripple::DeviceOptions deviceOptions;
    particles::KernelForm form = particles::KernelForm::Spirv;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        uint32_t* target = a == "--particles"   ? &config.count
                           : a == "--width"     ? &config.width
                           : a == "--height"    ? &config.height
                           : a == "--k"         ? &config.k
                           : a == "--frames"    ? &frames
                           : a == "--in-flight" ? &inFlight
                                                : nullptr;
        if (target) {
            if (!number(value, *target)) return usage(("bad value for " + a).c_str());
            ++i;
        } else if (a == "--mass" && value &&
                   (std::strcmp(value, "int") == 0 || std::strcmp(value, "float") == 0)) {
            config.floatMass = std::strcmp(value, "float") == 0;
            ++i;
        } else if (a == "--backend" && value &&
                   (std::strcmp(value, "vulkan") == 0 || std::strcmp(value, "d3d12") == 0)) {
            // d3d12: the user kernels and operators as HLSL, where ripple was built with the D3D12 back-end
            deviceOptions.backend =
                std::strcmp(value, "d3d12") == 0 ? ripple::Backend::D3D12 : ripple::Backend::Vulkan;
            ++i;
        } else if (a == "--png" && value && *value) {
            png = value;
            ++i;
        } else if (a == "--help" || a == "-h") {
            usage("a particle system of user kernels, a ScatterElements ADD and a TopK");
            return 0;
        } else if (a == "--deterministic") {
            config.deterministic = true;
        } else if (a == "--check") {
            check = true;
        } else if (a == "--advect" && value &&
                   (std::strcmp(value, "direct") == 0 || std::strcmp(value, "indirect") == 0)) {
            config.indirectAdvect = std::strcmp(value, "indirect") == 0;
            ++i;
        } else if (a == "--no-fastest") {
            config.fastest = false;
        } else if (a == "--no-render-wait") {
            renderWait = false;
        } else if (a == "--validation") { // the Khronos layer, synchronization validation included
            deviceOptions.validation = true;
        } else if (a == "--hlsl-round-trip") {
            form = particles::KernelForm::HlslRoundTrip;
        } else {
            return usage(("unknown argument " + a).c_str());
        }
    }
    if (frames == 0 || frames > 1000000) return usage("--frames must be 1 to 1000000");
    if (inFlight == 0 || inFlight > 4) return usage("--in-flight must be 1 to 4");
    if (check) inFlight = 1; // each frame is read back before the next overwrites it

    auto device = ripple::Device::create(deviceOptions);
    if (!device) return fail(device.status());
    auto sim = particles::Simulation::create(device.value(), config, form);
    if (!sim)
        return sim.status().code() == ripple::StatusCode::InvalidArgument ? (fail(sim.status()), 2)
                                                                          : fail(sim.status());
    ripple::RecorderOptions options;
    options.timestamps = device->adapter().features.timestamps;
    auto recorder = device->createRecorder(options);
    if (!recorder) return fail(recorder.status());
    std::printf("%u particles, %ux%u grid, K=%u, %s mass%s, %s kernels, on %s\n", config.count, config.width,
                config.height, config.k, config.floatMass ? "FLOAT32" : "INT32",
                config.deterministic ? " (deterministic splat)" : "",
                deviceOptions.backend == ripple::Backend::D3D12 ? "HLSL"
                : form == particles::KernelForm::Spirv          ? "SPIR-V"
                                                                : "HLSL round-trip",
                device->adapter().name.c_str());

    // The frame, recorded once per frame in flight: every submission runs the next frame (tick.comp).
    std::vector<ripple::Recording> recordings;
    uint32_t barriers = 0;
    for (uint32_t i = 0; i < inFlight; ++i) {
        if (ripple::Status s = sim->record(recorder.value()); !s) return fail(s);
        barriers = recorder->statistics().barriers;
        auto recording = device->finishRecording(recorder.value());
        if (!recording) return fail(recording.status());
        recordings.push_back(std::move(recording.value()));
    }
    RenderStandIn render;
    if (ripple::Status s = renderWait ? render.create(device.value()) : ripple::Status(); !s) return fail(s);
    std::printf("frame recorded once, %u barriers, %u in flight; %s\n", barriers, inFlight,
                render.semaphore ? "each submission waits on the render stand-in's timeline semaphore"
                                 : "no timeline semaphore here: submissions wait on nothing");

    const bool exact = !config.floatMass || config.deterministic;
    particles::Model model(config);
    const char* passes[] = {"tick", "advect", "splat", "topk", "fastest", "shade"};
    constexpr int kPasses = 6;
    std::vector<double> passMicroseconds[kPasses], frameMicroseconds, hostMicroseconds;
    std::deque<ripple::Ticket> pending; // submitted, not yet waited for, oldest first
    auto last = std::chrono::steady_clock::now();
    for (uint32_t frame = 0, done = 0; done < frames;) {
        if (frame < frames && pending.size() < inFlight) {
            ripple::Recording& recording = recordings[frame % inFlight];
            ripple::Result<ripple::Ticket> ticket =
                ripple::Status(ripple::StatusCode::Internal, "not submitted");
            if (render.semaphore) { // frame f runs once the stand-in has presented frame f - 1 (value f + 1)
                ripple::interop::VulkanSubmitSync sync;
                sync.waits.push_back(
                    {render.semaphore, uint64_t(frame) + 1, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT});
                ticket = ripple::interop::submit(device.value(), recording, sync);
                // The host stands in for the engine's graphics queue: frame f - 1 is presented only now, so
                // the GPU holds frame f's work until this signal.
                if (ticket && frame > 0) render.present(frame - 1);
            } else {
                ticket = device->submit(recording);
            }
            if (!ticket) return fail(ticket.status());
            pending.push_back(ticket.value());
            ++frame;
            continue;
        }
        // The oldest frame in flight: wait, then its reports.
        if (ripple::Status s = device->wait(pending.front()); !s) return fail(s);
        const auto now = std::chrono::steady_clock::now();
        const double host = std::chrono::duration<double, std::micro>(now - last).count();
        last = now;
        auto reports = device->reports(pending.front());
        pending.pop_front();
        if (!reports) return fail(reports.status());
        uint64_t begin = UINT64_MAX, end = 0;
        double us[kPasses] = {};
        for (const ripple::OperatorReport& r : reports.value()) {
            if (!r.status) return fail(r.status);
            for (int p = 0; p < kPasses; ++p)
                if (r.label == passes[p]) us[p] = r.gpuNanoseconds / 1000.0;
            begin = std::min(begin, r.gpuBeginNanoseconds);
            end = std::max(end, r.gpuEndNanoseconds);
        }
        const double total = end > begin ? (end - begin) / 1000.0 : 0.0;
        if (done > 0 || frames == 1) { // the first frame also pays for first use
            for (int p = 0; p < kPasses; ++p) passMicroseconds[p].push_back(us[p]);
            frameMicroseconds.push_back(total);
            hostMicroseconds.push_back(host);
        }
        if (done < 3 || done + 1 == frames)
            std::printf(
                "frame %u: tick %.1f us, advect %.1f us, splat %.1f us, topk %.1f us, fastest %.1f us, "
                "shade %.1f us; frame %.1f us GPU\n",
                done, us[0], us[1], us[2], us[3], us[4], us[5], total);
        if (check) {
            model.step(done);
            if (!matches(sim.value(), model, done, exact)) return 1;
        }
        ++done;
    }
    std::printf(
        "median over %zu frames: tick %.1f us, advect %.1f us, splat %.1f us, topk %.1f us, fastest %.1f "
        "us, shade %.1f us; frame %.1f us GPU, %.1f us host (one wait's return to the next)\n",
        frameMicroseconds.size(), median(passMicroseconds[0]), median(passMicroseconds[1]),
        median(passMicroseconds[2]), median(passMicroseconds[3]), median(passMicroseconds[4]),
        median(passMicroseconds[5]), median(frameMicroseconds), median(hostMicroseconds));
    if (check)
        std::printf("check: %u frames match the CPU model (%s)\n", frames,
                    exact ? "live count, fastest, grid, TopK and image exactly"
                          : "live count and fastest exactly, grid to 1e-5; FLOAT32 sums in any order");
    if (deviceOptions.validation && device->validationMessageCount() != 0)
        return std::fprintf(stderr, "ripple-particles: %u validation messages\n",
                            device->validationMessageCount()),
               1;
    if (!png.empty()) {
        std::vector<uint32_t> rgba;
        if (ripple::Status s = sim->image(rgba); !s) return fail(s);
        if (std::string why = particles::writePng(png, config.width, config.height, rgba); !why.empty())
            return std::fprintf(stderr, "ripple-particles: %s\n", why.c_str()), 1;
        std::printf("wrote %s\n", png.c_str());
    }
    return 0;
}
