// SPDX-License-Identifier: MIT
// ripple-d3d12-first-use: each operator's first use on a new D3D12 device, from compile() (pipeline creation)
// to its first result in host memory, with the build's embedded bytecode and again with its HLSL compiled at
// run time (DeviceOptions::compileHlslAtRunTime, the embedded bytecode ignored), in one process. On Linux the
// run-time compiler is the library RIPPLE_D3D12_HLSL_COMPILER names (tools/vkd3d-tool.sh's glue); vkd3d runs
// both. Milliseconds, the median of --repeats fresh devices per case and form (docs/D3D12.md's table).
//   ripple-d3d12-first-use [--repeats N]
#include "d3d12/device.hpp"

#include "ripple/ripple.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::duration d) {
    return std::chrono::duration<double, std::milli>(d).count();
}

struct Case {
    const char* name;
    std::function<ripple::Result<ripple::Operator>(ripple::Device&)> compile;
    std::vector<uint64_t> tensorBytes; // one buffer per binding, in the operator's order
};

ripple::TensorDesc tensor(ripple::DataType type, std::vector<uint32_t> sizes) {
    return {type, std::move(sizes), {}};
}

Case topk(const char* name, std::vector<uint32_t> sizes, uint32_t axis, uint32_t k) {
    ripple::TopKDesc d;
    d.InputTensor = tensor(ripple::DataType::Float32, sizes);
    std::vector<uint32_t> out = sizes;
    out[axis] = k;
    d.OutputValueTensor = tensor(ripple::DataType::Float32, out);
    d.OutputIndexTensor = tensor(ripple::DataType::UInt32, out);
    d.Axis = axis;
    d.K = k;
    return {name,
            [d](ripple::Device& dev) { return dev.compile(d); },
            {ripple::calcBufferTensorSize(d.InputTensor), ripple::calcBufferTensorSize(d.OutputValueTensor),
             ripple::calcBufferTensorSize(d.OutputIndexTensor)}};
}

Case scatterElements(const char* name, ripple::ScatterReduction reduction, bool deterministic) {
    ripple::ScatterElementsDesc d;
    d.InputTensor = tensor(ripple::DataType::Float32, {256, 512});
    d.IndicesTensor = tensor(ripple::DataType::Int32, {256, 64});
    d.UpdatesTensor = tensor(ripple::DataType::Float32, {256, 64});
    d.OutputTensor = d.InputTensor;
    d.Axis = 1;
    d.Reduction = reduction;
    d.Deterministic = deterministic;
    return {name,
            [d](ripple::Device& dev) { return dev.compile(d); },
            {ripple::calcBufferTensorSize(d.InputTensor), ripple::calcBufferTensorSize(d.IndicesTensor),
             ripple::calcBufferTensorSize(d.UpdatesTensor), ripple::calcBufferTensorSize(d.OutputTensor)}};
}

Case scatterNd(const char* name, ripple::ScatterReduction reduction) {
    ripple::ScatterNDDesc d;
    d.InputTensor = tensor(ripple::DataType::Float32, {4096, 64});
    d.IndicesTensor = tensor(ripple::DataType::Int32, {512, 1});
    d.UpdatesTensor = tensor(ripple::DataType::Float32, {512, 64});
    d.OutputTensor = d.InputTensor;
    d.InputDimensionCount = 2;
    d.IndicesDimensionCount = 2;
    d.Reduction = reduction;
    return {name,
            [d](ripple::Device& dev) { return dev.compile(d); },
            {ripple::calcBufferTensorSize(d.InputTensor), ripple::calcBufferTensorSize(d.IndicesTensor),
             ripple::calcBufferTensorSize(d.UpdatesTensor), ripple::calcBufferTensorSize(d.OutputTensor)}};
}

// compile() and then the first result; false with a message when any step fails.
bool firstUse(const Case& c, bool runTime, double& compileMs, double& totalMs) {
    ripple::DeviceOptions options;
    options.backend = ripple::Backend::D3D12;
    options.compileHlslAtRunTime = runTime;
    ripple::d3d12::setEmbeddedBytecodeForTesting(!runTime);
    auto device = ripple::Device::create(options);
    if (!device) return std::fprintf(stderr, "%s\n", device.status().message().c_str()), false;
    std::vector<ripple::Buffer> buffers;
    for (uint64_t bytes : c.tensorBytes) {
        auto b = device->createBuffer(bytes);
        if (!b) return std::fprintf(stderr, "%s\n", b.status().message().c_str()), false;
        std::vector<uint8_t> zero(bytes, 0); // indices 0: in range for every case
        if (!device->upload(b.value(), 0, zero.data(), bytes)) return false;
        buffers.push_back(std::move(b.value()));
    }
    const auto start = Clock::now();
    auto op = c.compile(device.value());
    const auto compiled = Clock::now();
    if (!op) return std::fprintf(stderr, "%s: %s\n", c.name, op.status().message().c_str()), false;
    std::vector<ripple::TensorBinding> bindings;
    for (auto& b : buffers) bindings.push_back({&b, 0});
    if (ripple::Status s = device->execute(op.value(), bindings); !s)
        return std::fprintf(stderr, "%s: %s\n", c.name, s.message().c_str()), false;
    std::vector<uint8_t> out(c.tensorBytes.back());
    if (!device->download(buffers.back(), 0, out.data(), out.size())) return false;
    compileMs = ms(compiled - start);
    totalMs = ms(Clock::now() - start);
    return true;
}

} // namespace

int main(int argc, char** argv) {
    int repeats = 3;
    if (argc == 3 && std::strcmp(argv[1], "--repeats") == 0) repeats = std::max(1, std::atoi(argv[2]));
    const Case cases[] = {
        topk("TopK rank counting (64,32) K=4", {64, 32}, 1, 4),
        topk("TopK lanes (4096,64) K=16", {4096, 64}, 1, 16),
        topk("TopK one workgroup a row (64,2000) K=100", {64, 2000}, 1, 100),
        topk("TopK chunks (1,152064) K=40", {1, 152064}, 1, 40),
        topk("TopK sampled selection (4,1048576) K=100", {4, 1048576}, 1, 100),
        topk("TopK tiles (2,300000) K=2000", {2, 300000}, 1, 2000),
        scatterNd("ScatterND rows, NONE", ripple::ScatterReduction::None),
        scatterNd("ScatterND rows, ADD", ripple::ScatterReduction::Add),
        scatterElements("ScatterElements, NONE", ripple::ScatterReduction::None, false),
        scatterElements("ScatterElements, ADD", ripple::ScatterReduction::Add, false),
        scatterElements("ScatterElements, deterministic", ripple::ScatterReduction::None, true),
    };
    std::printf("| operator | embedded bytecode: compile() ms | to first result ms | run-time HLSL: "
                "compile() ms | to "
                "first result ms |\n|---|---|---|---|---|\n");
    for (const Case& c : cases) {
        double result[2][2];
        for (int form = 0; form < 2; ++form) {
            std::vector<double> compile, total;
            for (int r = 0; r < repeats; ++r) {
                double a = 0, b = 0;
                if (!firstUse(c, form == 1, a, b)) return 1;
                compile.push_back(a), total.push_back(b);
            }
            std::sort(compile.begin(), compile.end());
            std::sort(total.begin(), total.end());
            result[form][0] = compile[compile.size() / 2], result[form][1] = total[total.size() / 2];
        }
        std::printf("| %s | %.0f | %.0f | %.0f | %.0f |\n", c.name, result[0][0], result[0][1], result[1][0],
                    result[1][1]);
        std::fflush(stdout);
    }
    return 0;
}
