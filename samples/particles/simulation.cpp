// SPDX-License-Identifier: MIT
#include "simulation.hpp"

#include "ripple_particles_kernels.hpp"

#include <algorithm>

namespace particles {
namespace {

ripple::Status invalid(const std::string& rule) {
    return ripple::Status(ripple::StatusCode::InvalidArgument, "particles: " + rule);
}

} // namespace

ripple::Result<Simulation> Simulation::create(ripple::Device& device, const Config& config, KernelForm form) {
    const uint64_t cells = uint64_t(config.width) * config.height;
    if (config.count == 0 || config.width == 0 || config.height == 0)
        return invalid("count, width and height must be at least 1");
    if (config.width > 32768 || config.height > 32768 || config.count > (1u << 26))
        return invalid("width and height are at most 32768 cells, count at most 2^26 particles");
    if (config.k == 0 || config.k > cells || config.k > 1024)
        return invalid("k must be 1 to 1024 and at most width * height");
    Simulation s;
    s.device_ = &device;
    s.config_ = config;
    const bool rt = form == KernelForm::HlslRoundTrip;
    auto tick = device.compile(
        ripple::KernelDesc{rt ? &particles_kernels::hlsl_round_trip::tick : &particles_kernels::tick});
    if (!tick) return tick.status();
    s.tick_ = std::move(tick.value());
    auto advect = device.compile(
        ripple::KernelDesc{rt ? &particles_kernels::hlsl_round_trip::advect : &particles_kernels::advect});
    if (!advect) return advect.status();
    auto shade = device.compile(
        ripple::KernelDesc{rt ? &particles_kernels::hlsl_round_trip::shade : &particles_kernels::shade});
    if (!shade) return shade.status();
    s.advect_ = std::move(advect.value());
    s.shade_ = std::move(shade.value());

    const ripple::DataType type = config.floatMass ? ripple::DataType::Float32 : ripple::DataType::Int32;
    ripple::ScatterElementsDesc splat; // in place: the grid is zeroed, then each mass added to its cell
    splat.InputTensor = {type, {uint32_t(cells)}, {}};
    splat.IndicesTensor = {ripple::DataType::Int32, {config.count}, {}};
    splat.UpdatesTensor = {type, {config.count}, {}};
    splat.OutputTensor = splat.InputTensor;
    splat.Axis = 0;
    splat.Reduction = ripple::ScatterReduction::Add;
    splat.Deterministic = config.deterministic;
    const ripple::TensorDesc liveCount = {ripple::DataType::UInt32, {1}, {}}; // tick.comp's alive[0]
    splat.CountTensor = liveCount;                                            // only the live particles
    auto splatOp = device.compile(splat);
    if (!splatOp) return splatOp.status();
    s.splat_ = std::move(splatOp.value());
    ripple::TopKDesc topk; // the K densest cells, densest first
    topk.InputTensor = {type, {1, uint32_t(cells)}, {}};
    topk.OutputValueTensor = {type, {1, config.k}, {}};
    topk.OutputIndexTensor = {ripple::DataType::UInt32, {1, config.k}, {}};
    topk.Axis = 1;
    topk.K = config.k;
    auto topkOp = device.compile(topk);
    if (!topkOp) return topkOp.status();
    s.topk_ = std::move(topkOp.value());
    const uint32_t fastK = std::min(config.k, config.count);
    ripple::TopKDesc fastest; // the fastest live particles, fastest first
    fastest.InputTensor = {ripple::DataType::Int32, {1, config.count}, {}};
    fastest.OutputValueTensor = {ripple::DataType::Int32, {1, fastK}, {}};
    fastest.OutputIndexTensor = {ripple::DataType::UInt32, {1, fastK}, {}};
    fastest.Axis = 1;
    fastest.K = fastK;
    fastest.CountTensor = liveCount;
    auto fastestOp = device.compile(fastest);
    if (!fastestOp) return fastestOp.status();
    s.fastest_ = std::move(fastestOp.value());

    struct Made {
        ripple::Buffer* buffer;
        uint64_t bytes;
        const char* label;
    } made[] = {{&s.state_, uint64_t(config.count) * 16, "particles.state"},
                {&s.cells_, uint64_t(config.count) * 4, "particles.cells"},
                {&s.masses_, uint64_t(config.count) * 4, "particles.masses"},
                {&s.grid_, cells * 4, "particles.grid"},
                {&s.topValues_, uint64_t(config.k) * 4, "particles.topValues"},
                {&s.topIndices_, uint64_t(config.k) * 4, "particles.topIndices"},
                {&s.image_, cells * 4, "particles.image"},
                {&s.alive_, 4, "particles.alive"},
                {&s.frame_, 24, "particles.frame"},
                {&s.attractors_, uint64_t(kAttractorPeriod) * 3 * 16, "particles.attractors"},
                {&s.speeds_, uint64_t(config.count) * 4, "particles.speeds"},
                {&s.fastValues_, uint64_t(fastK) * 4, "particles.fastValues"},
                {&s.fastIndices_, uint64_t(fastK) * 4, "particles.fastIndices"}};
    for (const Made& m : made) {
        auto b = device.createBuffer(m.bytes);
        if (!b) return b.status();
        *m.buffer = std::move(b.value());
        if (ripple::Status st = device.setLabel(*m.buffer, m.label); !st) return st;
    }
    const std::vector<int32_t> state = initialState(config);
    const std::vector<uint32_t> mass = masses(config);
    if (ripple::Status st = device.upload(s.state_, 0, state.data(), state.size() * 4); !st) return st;
    if (ripple::Status st = device.upload(s.masses_, 0, mass.data(), mass.size() * 4); !st) return st;
    const std::vector<int32_t> table = attractorTable(config);
    if (ripple::Status st = device.upload(s.attractors_, 0, table.data(), table.size() * 4); !st) return st;
    // Frame 0's step on the host; the GPU steps each later one at the end of the frame before it.
    const Tick first = particles::tick(tickConstants(config), 0, initialAlive(config));
    const uint32_t frame[6] = {0, first.survivors, (first.alive + 255) / 256, 1, 1, 0};
    if (ripple::Status st = device.upload(s.alive_, 0, &first.alive, 4); !st) return st;
    if (ripple::Status st = device.upload(s.frame_, 0, frame, sizeof frame); !st) return st;
    return s;
}

ripple::Status Simulation::record(ripple::CommandRecorder& r) {
    if (!device_) return invalid("the Simulation is empty");
    const Config& c = config_;
    const TickConstants tickPush = tickConstants(c);
    ripple::KernelDispatch tick;
    tick.Bindings = {{&alive_, 0, 0}, {&frame_, 0, 0}};
    tick.PushConstants = &tickPush;
    tick.PushConstantBytes = sizeof tickPush;
    tick.Label = "tick";
    const AdvectConstants advectPush = advectConstants(c);
    ripple::KernelDispatch advect;
    if (c.indirectAdvect) {
        advect.IndirectBuffer = &frame_; // tick.comp's group count for the live particles
        advect.IndirectOffset = 8;
    } else {
        advect.GroupCount[0] = (c.count + 255) / 256; // every particle's invocation; the dead return at once
    }
    advect.Bindings = {{&state_, 0, 0}, {&cells_, 0, 0},      {&alive_, 0, 0},
                       {&frame_, 0, 0}, {&attractors_, 0, 0}, {&speeds_, 0, 0}};
    advect.PushConstants = &advectPush;
    advect.PushConstantBytes = sizeof advectPush;
    advect.Label = "advect";
    const ShadeConstants shadePush{c.width, c.height, c.k, c.floatMass ? 1u : 0u};
    ripple::KernelDispatch shade;
    shade.GroupCount[0] = (c.width + 15) / 16;
    shade.GroupCount[1] = (c.height + 15) / 16;
    shade.Bindings = {{&grid_, 0, 0}, {&topValues_, 0, 0}, {&topIndices_, 0, 0}, {&image_, 0, 0}};
    shade.PushConstants = &shadePush;
    shade.PushConstantBytes = sizeof shadePush;
    shade.Label = "shade";
    // The recorder orders these by the bytes each reads and writes: the fill, the advect and the splat's
    // count pass share the first level, the splat follows, then the TopKs, then the shade; the tick (the
    // next frame's step) follows the last reader of `alive` and runs beside the TopKs.
    ripple::Status s = r.fillBuffer(grid_, 0, grid_.size(), 0);
    if (s) s = r.record(advect_, advect);
    if (s)
        s = r.record(splat_, {{&grid_, 0}, {&cells_, 0}, {&masses_, 0}, {&grid_, 0}, {&alive_, 0}}, "splat");
    if (s) s = r.record(topk_, {{&grid_, 0}, {&topValues_, 0}, {&topIndices_, 0}}, "topk");
    if (s && c.fastest)
        s = r.record(fastest_, {{&speeds_, 0}, {&fastValues_, 0}, {&fastIndices_, 0}, {&alive_, 0}},
                     "fastest");
    if (s) s = r.record(shade_, shade);
    if (s) s = r.record(tick_, tick);
    return s;
}

ripple::Status Simulation::grid(std::vector<uint32_t>& bits) const {
    if (!device_) return invalid("the Simulation is empty");
    bits.resize(grid_.size() / 4);
    return device_->download(grid_, 0, bits.data(), grid_.size());
}

ripple::Status Simulation::top(std::vector<uint32_t>& values, std::vector<uint32_t>& indices) const {
    if (!device_) return invalid("the Simulation is empty");
    values.resize(config_.k);
    indices.resize(config_.k);
    ripple::Status s = device_->download(topValues_, 0, values.data(), topValues_.size());
    return s ? device_->download(topIndices_, 0, indices.data(), topIndices_.size()) : s;
}

ripple::Status Simulation::alive(uint32_t& count) const {
    if (!device_) return invalid("the Simulation is empty");
    return device_->download(frame_, 20, &count, 4); // tick.comp kept it: `alive` is the next frame's now
}

ripple::Status Simulation::fastest(std::vector<int32_t>& speeds, std::vector<uint32_t>& particles) const {
    if (!device_) return invalid("the Simulation is empty");
    speeds.resize(fastValues_.size() / 4);
    particles.resize(fastIndices_.size() / 4);
    ripple::Status s = device_->download(fastValues_, 0, speeds.data(), fastValues_.size());
    return s ? device_->download(fastIndices_, 0, particles.data(), fastIndices_.size()) : s;
}

ripple::Status Simulation::image(std::vector<uint32_t>& rgba) const {
    if (!device_) return invalid("the Simulation is empty");
    rgba.resize(image_.size() / 4);
    return device_->download(image_, 0, rgba.data(), image_.size());
}

} // namespace particles
