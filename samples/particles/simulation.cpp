// SPDX-License-Identifier: MIT
#include "simulation.hpp"

#include "ripple_particles_kernels.hpp"

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
                {&s.image_, cells * 4, "particles.image"}};
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
    return s;
}

ripple::Status Simulation::record(ripple::CommandRecorder& r, uint32_t frame) {
    if (!device_) return invalid("the Simulation is empty");
    const Config& c = config_;
    const AdvectConstants advectPush = advectConstants(c, frame);
    ripple::KernelDispatch advect;
    advect.GroupCount[0] = (c.count + 255) / 256;
    advect.Bindings = {{&state_, 0, 0}, {&cells_, 0, 0}};
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
    // The recorder orders these by the bytes each reads and writes: the fill and the advect share the
    // first level, the splat follows both, then the TopK, then the shade.
    ripple::Status s = r.fillBuffer(grid_, 0, grid_.size(), 0);
    if (s) s = r.record(advect_, advect);
    if (s) s = r.record(splat_, {{&grid_, 0}, {&cells_, 0}, {&masses_, 0}, {&grid_, 0}}, "splat");
    if (s) s = r.record(topk_, {{&grid_, 0}, {&topValues_, 0}, {&topIndices_, 0}}, "topk");
    if (s) s = r.record(shade_, shade);
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

ripple::Status Simulation::image(std::vector<uint32_t>& rgba) const {
    if (!device_) return invalid("the Simulation is empty");
    rgba.resize(image_.size() / 4);
    return device_->download(image_, 0, rgba.data(), image_.size());
}

} // namespace particles
