// SPDX-License-Identifier: MIT
// ripple-particles: a particle system in one submission per frame (advect.comp, a ScatterElements ADD
// splat into a density grid, a TopK of the densest cells, shade.comp), printing each pass's GPU time and
// writing the last frame as a PNG. With --check, every frame is compared with the CPU model (model.hpp).
//
//   ripple-particles [--particles N] [--width W] [--height H] [--k K] [--frames F] [--mass int|float]
//                    [--deterministic] [--png PATH] [--check] [--hlsl-round-trip] [--validation]
//                    [--backend vulkan|d3d12]
// Exit status: 0 done (and matching), 1 a failure or a mismatch, 2 bad arguments.
#include "model.hpp"
#include "png_writer.hpp"
#include "simulation.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int usage(const char* why) {
    std::fprintf(
        stderr,
        "ripple-particles: %s\nusage: ripple-particles [--particles N] [--width W] [--height H] [--k K] "
        "[--frames F] [--mass int|float] [--deterministic] [--png PATH] [--check] [--hlsl-round-trip] "
        "[--validation] [--backend vulkan|d3d12]\n",
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
    std::vector<uint32_t> grid, values, indices, image;
    if (!sim.grid(grid) || !sim.top(values, indices) || !sim.image(image)) return false;
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

} // namespace

int main(int argc, char** argv) {
    particles::Config config;
    uint32_t frames = 60;
    std::string png;
    bool check = false;
    ripple::DeviceOptions deviceOptions;
    particles::KernelForm form = particles::KernelForm::Spirv;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        uint32_t* target = a == "--particles" ? &config.count
                           : a == "--width"   ? &config.width
                           : a == "--height"  ? &config.height
                           : a == "--k"       ? &config.k
                           : a == "--frames"  ? &frames
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
        } else if (a == "--validation") { // the Khronos layer, synchronization validation included
            deviceOptions.validation = true;
        } else if (a == "--hlsl-round-trip") {
            form = particles::KernelForm::HlslRoundTrip;
        } else {
            return usage(("unknown argument " + a).c_str());
        }
    }
    if (frames == 0 || frames > 1000000) return usage("--frames must be 1 to 1000000");

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

    const bool exact = !config.floatMass || config.deterministic;
    particles::Model model(config);
    const char* passes[] = {"advect", "splat", "topk", "shade"};
    std::vector<double> passMicroseconds[4], frameMicroseconds, hostMicroseconds;
    for (uint32_t frame = 0; frame < frames; ++frame) {
        const auto start = std::chrono::steady_clock::now(); // the host's frame: record, submit, wait
        if (ripple::Status s = sim->record(recorder.value(), frame); !s) return fail(s);
        const uint32_t barriers = recorder->statistics().barriers;
        auto ticket = device->submit(recorder.value());
        if (!ticket) return fail(ticket.status());
        if (ripple::Status s = device->wait(ticket.value()); !s) return fail(s);
        const double host =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
        auto reports = device->reports(ticket.value());
        if (!reports) return fail(reports.status());
        uint64_t begin = UINT64_MAX, end = 0;
        double us[4] = {};
        for (const ripple::OperatorReport& r : reports.value()) {
            if (!r.status) return fail(r.status);
            for (int p = 0; p < 4; ++p)
                if (r.label == passes[p]) us[p] = r.gpuNanoseconds / 1000.0;
            begin = std::min(begin, r.gpuBeginNanoseconds);
            end = std::max(end, r.gpuEndNanoseconds);
        }
        const double total = end > begin ? (end - begin) / 1000.0 : 0.0;
        if (frame > 0 || frames == 1) { // the first frame also pays for first use
            for (int p = 0; p < 4; ++p) passMicroseconds[p].push_back(us[p]);
            frameMicroseconds.push_back(total);
            hostMicroseconds.push_back(host);
        }
        if (frame < 3 || frame + 1 == frames)
            std::printf(
                "frame %u: advect %.1f us, splat %.1f us, topk %.1f us, shade %.1f us; frame %.1f us GPU, "
                "%u barriers\n",
                frame, us[0], us[1], us[2], us[3], total, barriers);
        if (check) {
            model.step(frame);
            if (!matches(sim.value(), model, frame, exact)) return 1;
        }
    }
    std::printf(
        "median over %zu frames: advect %.1f us, splat %.1f us, topk %.1f us, shade %.1f us; frame %.1f us "
        "GPU, %.1f us host (record, submit, wait)\n",
        frameMicroseconds.size(), median(passMicroseconds[0]), median(passMicroseconds[1]),
        median(passMicroseconds[2]), median(passMicroseconds[3]), median(frameMicroseconds),
        median(hostMicroseconds));
    if (check)
        std::printf("check: %u frames match the CPU model (%s)\n", frames,
                    exact ? "grid, TopK and image exactly" : "grid to 1e-5; FLOAT32 sums in any order");
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
