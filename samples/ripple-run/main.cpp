// SPDX-License-Identifier: MIT
// ripple-run: runs one ripple operator on .npy files, through Vulkan.
//
//   ripple-run top-k --input X.npy --axis A --k K [--direction decreasing|increasing]
//                    [--index-type uint32|uint64|int64] --output-values V.npy --output-indices I.npy
//   ripple-run scatter-nd --input X.npy --indices I.npy --updates U.npy --output O.npy
//                    [--reduction none|add|mul|max|min] [--deterministic]
//   ripple-run scatter-elements --input X.npy --indices I.npy --updates U.npy --axis A --output O.npy
//                    [--reduction none|add|mul|max|min] [--deterministic]
//   ripple-run devices
// Options for every operator: --backend vulkan|d3d12 (default vulkan; d3d12 where ripple was built with it),
// --device N (adapter index, see `devices`; RIPPLE_DEVICE=N does the same),
// --validation (Khronos layer; also RIPPLE_VALIDATION=1; any validation message then fails the run with
// exit 1), --portable (32-bit-storage kernels only), --print (print inputs and outputs).
// --deterministic (scatters): duplicates applied in the indices' row-major order (the last one wins, or
// with a reduction each folded in that order), the same bits on every run.
// Arrays keep their NumPy rank and are right-aligned to a common DimensionCount (leading 1s). Axis may be
// negative (counted from the end, as ONNX does).
// Exit status: 0 success; 2 invalid arguments or tensors; 3 index data out of range (found on the GPU);
// 1 anything else. On failure no output file is left behind.
#include "npy.hpp"

#include "ripple/ripple.hpp"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#if defined(_WIN32)
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <shellapi.h> // CommandLineToArgvW
#endif

namespace {

enum Exit { kOk = 0, kOther = 1, kInvalid = 2, kIndexRange = 3 };

int fail(int code, const std::string& message) {
    std::fprintf(stderr, "ripple-run: %s\n", npy::printable(message).c_str()); // one line, whatever it quotes
    return code;
}

int exitFor(const ripple::Status& s) {
    switch (s.code()) {
    case ripple::StatusCode::InvalidArgument:
    case ripple::StatusCode::Unsupported:
        return kInvalid;
    case ripple::StatusCode::IndexOutOfRange:
        return kIndexRange;
    default:
        return kOther;
    }
}

float halfToFloat(uint16_t h) {
    uint32_t sign = (h >> 15) & 1, exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
    float v = exp == 0    ? std::ldexp(float(mant), -24)
              : exp == 31 ? (mant ? NAN : INFINITY)
                          : std::ldexp(float(mant | 0x400), int(exp) - 25);
    return sign ? -v : v;
}

std::string formatElement(const npy::Array& a, uint64_t i) {
    using ripple::DataType;
    const uint8_t* p = a.data.data() + i * ripple::elementSize(a.type);
    char buf[64];
    auto get = [&](auto v) {
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    switch (a.type) {
    case DataType::Float32:
        std::snprintf(buf, sizeof buf, "%g", get(float()));
        break;
    case DataType::Float64:
        std::snprintf(buf, sizeof buf, "%g", get(double()));
        break;
    case DataType::Float16:
        std::snprintf(buf, sizeof buf, "%g", halfToFloat(get(uint16_t())));
        break;
    case DataType::Int8:
        std::snprintf(buf, sizeof buf, "%d", get(int8_t()));
        break;
    case DataType::Int16:
        std::snprintf(buf, sizeof buf, "%d", get(int16_t()));
        break;
    case DataType::Int32:
        std::snprintf(buf, sizeof buf, "%d", get(int32_t()));
        break;
    case DataType::Int64:
        std::snprintf(buf, sizeof buf, "%" PRId64, get(int64_t()));
        break;
    case DataType::UInt8:
        std::snprintf(buf, sizeof buf, "%u", get(uint8_t()));
        break;
    case DataType::UInt16:
        std::snprintf(buf, sizeof buf, "%u", get(uint16_t()));
        break;
    case DataType::UInt32:
        std::snprintf(buf, sizeof buf, "%u", get(uint32_t()));
        break;
    case DataType::UInt64:
        std::snprintf(buf, sizeof buf, "%" PRIu64, get(uint64_t()));
        break;
    case DataType::BFloat16: {
        const uint32_t widened = static_cast<uint32_t>(get(uint16_t())) << 16;
        float f;
        std::memcpy(&f, &widened, 4);
        std::snprintf(buf, sizeof buf, "%g", f);
        break;
    }
    }
    return buf;
}

void printNested(const npy::Array& a, size_t dim, uint64_t& i, std::string& out) {
    if (dim == a.shape.size()) {
        out += formatElement(a, i++);
        return;
    }
    out += "[";
    for (uint32_t k = 0; k < a.shape[dim]; ++k) {
        if (k) out += dim + 1 == a.shape.size() ? ", " : ",\n" + std::string(dim + 1, ' ');
        printNested(a, dim + 1, i, out);
    }
    out += "]";
}

void print(const char* name, const npy::Array& a) {
    std::string sizes;
    for (uint32_t s : a.shape) sizes += (sizes.empty() ? "" : ",") + std::to_string(s);
    std::string body;
    uint64_t i = 0;
    if (a.count() <= 4096)
        printNested(a, 0, i, body);
    else
        body = "(" + std::to_string(a.count()) + " elements)";
    std::printf("%s (Sizes:{%s}, DataType:%s)\n%s\n\n", name, sizes.c_str(), ripple::toString(a.type),
                body.c_str());
}

struct Args {
    std::string op;
    std::map<std::string, std::string> values;
    bool validation = false, portable = false, printAll = false, deterministic = false;
    bool has(const std::string& k) const { return values.count(k) != 0; }
};

bool parse(int argc, char** argv, Args& args, std::string& error) {
    static const char* valued[] = {"input",     "indices",   "updates",    "output",        "axis",
                                   "k",         "direction", "index-type", "output-values", "output-indices",
                                   "reduction", "device",    "backend"};
    if (argc < 2)
        return error = "usage: ripple-run top-k|scatter-nd|scatter-elements|devices [options]", false;
    args.op = argv[1];
    for (int i = 2; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--validation") {
            args.validation = true;
            continue;
        }
        if (a == "--portable") {
            args.portable = true;
            continue;
        }
        if (a == "--print") {
            args.printAll = true;
            continue;
        }
        if (a == "--deterministic") {
            args.deterministic = true;
            continue;
        }
        bool known = false;
        for (const char* v : valued) known |= a == std::string("--") + v;
        if (!known) return error = "unknown option " + a, false;
        if (i + 1 >= argc) return error = a + " needs a value", false;
        args.values[a.substr(2)] = argv[++i];
    }
    return true;
}

// A decimal integer and nothing else: an optional '-', then 1 to 12 digits (no spaces, no '+', no
// wrap-around: "4294967296" stays 4294967296, for the caller's range check to refuse).
bool parseInt(const std::string& s, long long& v) {
    const size_t digits = s.size() - (!s.empty() && s[0] == '-' ? 1 : 0);
    if (digits == 0 || digits > 12) return false;
    v = 0;
    for (size_t i = s.size() - digits; i < s.size(); ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    if (s[0] == '-') v = -v;
    return true;
}

ripple::TensorDesc descOf(const npy::Array& a, size_t rank) {
    ripple::TensorDesc d;
    d.DataType = a.type;
    d.Sizes.assign(rank > a.shape.size() ? rank - a.shape.size() : 0, 1);
    d.Sizes.insert(d.Sizes.end(), a.shape.begin(), a.shape.end());
    return d;
}

// Uploads each array into its own buffer (at least 4 bytes) and returns the bindings.
struct Tensors {
    std::vector<ripple::Buffer> buffers;
    std::vector<ripple::TensorBinding> bindings;
};

ripple::Status makeTensors(ripple::Device& device, const std::vector<const npy::Array*>& inputs,
                           const std::vector<uint64_t>& outputBytes, Tensors& t) {
    t.buffers.reserve(inputs.size() + outputBytes.size());
    for (const npy::Array* a : inputs) {
        auto b = device.createBuffer(std::max<uint64_t>(4, (a->data.size() + 3) & ~uint64_t(3)));
        if (!b) return b.status();
        t.buffers.push_back(std::move(b.value()));
        if (ripple::Status s = device.upload(t.buffers.back(), 0, a->data.data(), a->data.size()); !s)
            return s;
    }
    for (uint64_t bytes : outputBytes) {
        auto b = device.createBuffer(std::max<uint64_t>(4, bytes));
        if (!b) return b.status();
        t.buffers.push_back(std::move(b.value()));
    }
    for (auto& b : t.buffers) t.bindings.push_back({&b, 0});
    return {};
}

int listDevices() {
    auto adapters = ripple::enumerateAdapters(ripple::Backend::Vulkan);
    if (!adapters) return fail(kOther, adapters.status().message());
    if (adapters.value().empty()) return fail(kOther, "no Vulkan 1.1 adapter found");
    // D3D12 adapters too, where this ripple was built with D3D12 (Unsupported otherwise: nothing to list).
    if (auto d3d12 = ripple::enumerateAdapters(ripple::Backend::D3D12); d3d12.ok())
        adapters.value().insert(adapters.value().end(), d3d12.value().begin(), d3d12.value().end());
    for (ripple::AdapterInfo a : adapters.value()) {
        // What a Device on it sees: the driver's claims as ripple checked them (e.g. full subgroups).
        ripple::DeviceOptions options;
        options.backend = a.backend;
        options.adapterIndex = static_cast<int>(a.index);
        std::string opened;
        if (auto device = ripple::Device::create(options))
            a = device->adapter();
        else
            opened = "\n   (a Device cannot be created: " + device.status().message() + ")";
        const auto& f = a.features;
        std::string api =
            a.backend == ripple::Backend::Vulkan
                ? ", Vulkan " + std::to_string((a.apiVersion >> 22) & 0x7F) + "." +
                      std::to_string((a.apiVersion >> 12) & 0x3FF) + "." +
                      std::to_string(a.apiVersion & 0xFFF) + ", subgroup size " +
                      std::to_string(f.subgroupSize) + " (" + std::to_string(f.minSubgroupSize) + "-" +
                      std::to_string(f.maxSubgroupSize) + ")"
                : std::string(", portable kernels (HLSL shader model 5.1), bytecode built by ") +
                      (*ripple::d3d12BytecodeCompiler()
                           ? ripple::d3d12BytecodeCompiler()
                           : "none (operators need DeviceOptions::compileHlslAtRunTime)");
        std::printf(
            "%u: %s\n   backend %s, type %s%s, maxStorageBufferRange %" PRIu64
            "\n   features:%s%s%s%s%s%s%s%s%s%s%s%s%s%s%s\n",
            a.index, a.name.c_str(), ripple::toString(a.backend), ripple::toString(a.type), api.c_str(),
            f.maxStorageBufferRange, f.int64 ? " shaderInt64" : "", f.int64Atomics ? " int64Atomics" : "",
            f.int16 ? " shaderInt16" : "", f.int8 ? " shaderInt8" : "", f.float16 ? " shaderFloat16" : "",
            f.float64 ? " shaderFloat64" : "", f.storage8 ? " storage8" : "", f.storage16 ? " storage16" : "",
            f.subgroups ? " subgroups" : "", f.fullSubgroups ? " fullSubgroups" : "",
            f.pushDescriptors ? " pushDescriptors" : "", f.float32AtomicAdd ? " float32AtomicAdd" : "",
            f.signedZeroInfNanPreserveFloat32 ? " signedZeroInfNanPreserveFloat32" : "",
            f.timelineSemaphore ? " timelineSemaphore" : "", f.hostQueryReset ? " hostQueryReset" : "");
        std::printf("   limits: maxComputeSharedMemorySize %u, maxComputeWorkGroupInvocations %u, "
                    "maxComputeWorkGroupSize %u,%u,%u, maxComputeWorkGroupCount %u,%u,%u, "
                    "minStorageBufferOffsetAlignment %" PRIu64 "\n",
                    f.maxComputeSharedMemorySize, f.maxComputeWorkGroupInvocations,
                    f.maxComputeWorkGroupSize[0], f.maxComputeWorkGroupSize[1], f.maxComputeWorkGroupSize[2],
                    f.maxWorkgroupCount[0], f.maxWorkgroupCount[1], f.maxWorkgroupCount[2],
                    f.minStorageBufferOffsetAlignment);
        // The kernel family: subgroup scans need subgroups run full; 8/16-bit storage for narrow types.
        const bool scans = f.subgroups && f.fullSubgroups;
        std::printf("   kernels: %s%s\n",
                    scans ? "fast (subgroup scans with full subgroups" : "portable scans (shared memory",
                    f.storage8 && f.storage16 ? ", native 8/16-bit storage)" : ", 32-bit words)");
        // The strategies: ripple's full-size kernels take up to 512 invocations, 27,920 bytes of shared
        // memory and 7 storage buffers (docs/ARCHITECTURE.md); below those, the small-device variants take
        // over.
        const bool all = f.maxComputeWorkGroupInvocations >= 512 && f.maxComputeWorkGroupSize[0] >= 512 &&
                         f.maxComputeSharedMemorySize >= 27920 && f.maxPerStageDescriptorStorageBuffers >= 7;
        const bool fullSize = f.maxComputeWorkGroupInvocations >= 256 &&
                              f.maxComputeWorkGroupSize[0] >= 256 &&
                              f.maxPerStageDescriptorStorageBuffers >= 7;
        std::printf("   strategies: %s\n",
                    all ? "all"
                    : fullSize
                        ? "those whose kernels fit; the others planned again with small-device variants"
                        : "small-device variants (128 invocations, params in a uniform buffer): TopK as "
                          "tiles and merges, the scatters as element passes, the deterministic sort's "
                          "scatter in two dispatches");
        if (!opened.empty()) std::printf("%s\n", opened.c_str() + 1);
    }
    return kOk;
}

int run(const Args& args) {
    auto need = [&](const char* k) { return args.has(k); };
    for (const char* k : {"input"})
        if (!need(k)) return fail(kInvalid, std::string("--") + k + " is required");
    ripple::DeviceOptions options;
    const char* validationEnv = std::getenv("RIPPLE_VALIDATION");
    options.validation = args.validation || (validationEnv && std::strcmp(validationEnv, "1") == 0);
    if (args.portable) options.kernels = ripple::KernelPreference::Portable;
    if (args.has("backend")) {
        const std::string& b = args.values.at("backend");
        if (b != "vulkan" && b != "d3d12") return fail(kInvalid, "--backend must be vulkan or d3d12");
        options.backend = b == "d3d12" ? ripple::Backend::D3D12 : ripple::Backend::Vulkan;
    }
    if (args.has("device")) {
        long long v;
        if (!parseInt(args.values.at("device"), v) || v < 0 || v > 65535)
            return fail(kInvalid, "--device must be an adapter index (see ripple-run devices)");
        options.adapterIndex = static_cast<int>(v);
        auto adapters = ripple::enumerateAdapters(options.backend);
        if (adapters && static_cast<size_t>(v) >= adapters.value().size())
            return fail(kInvalid, "--device " + std::to_string(v) + ": there are " +
                                      std::to_string(adapters.value().size()) +
                                      " adapter(s) (see ripple-run devices)");
    }
    std::string error;
    for (const char* k : {"output", "output-values", "output-indices"})
        if (args.has(k) && !npy::writableOutput(args.values.at(k), error))
            return fail(kInvalid, std::string("--") + k + ": " + error);
    npy::Array input;
    if (!npy::load(args.values.at("input"), input, error)) return fail(kInvalid, "--input: " + error);
    if (args.printAll) print("InputTensor", input);

    auto axisArg = [&](size_t rank, uint32_t& axis) -> bool {
        long long v;
        if (!args.has("axis") || !parseInt(args.values.at("axis"), v)) return false;
        if (v < 0) v += static_cast<long long>(rank);
        if (v < 0 || v >= static_cast<long long>(rank)) return false;
        axis = static_cast<uint32_t>(v);
        return true;
    };

    if (args.op == "top-k") {
        for (const char* k : {"axis", "k", "output-values", "output-indices"})
            if (!need(k)) return fail(kInvalid, std::string("top-k: --") + k + " is required");
        if (args.deterministic)
            return fail(kInvalid, "top-k: --deterministic is for the scatters (TopK is always)");
        ripple::TopKDesc desc;
        desc.InputTensor = descOf(input, input.shape.size());
        if (!axisArg(input.shape.size(), desc.Axis))
            return fail(kInvalid, "top-k: --axis must be an integer in [-rank, rank)");
        long long k;
        if (!parseInt(args.values.at("k"), k) || k < 0 || k > 0xFFFFFFFFll)
            return fail(kInvalid, "top-k: --k must be a non-negative integer");
        desc.K = static_cast<uint32_t>(k);
        std::string dir = args.has("direction") ? args.values.at("direction") : "decreasing";
        if (dir != "decreasing" && dir != "increasing")
            return fail(kInvalid, "top-k: --direction must be decreasing or increasing");
        desc.AxisDirection =
            dir == "increasing" ? ripple::AxisDirection::Increasing : ripple::AxisDirection::Decreasing;
        std::string it = args.has("index-type") ? args.values.at("index-type") : "uint32";
        ripple::DataType indexType = it == "uint32"   ? ripple::DataType::UInt32
                                     : it == "uint64" ? ripple::DataType::UInt64
                                     : it == "int64"  ? ripple::DataType::Int64
                                                      : ripple::DataType::Float32;
        if (it != "uint32" && it != "uint64" && it != "int64")
            return fail(kInvalid, "top-k: --index-type must be uint32, uint64 or int64");
        npy::Array values, indices;
        values.type = input.type;
        indices.type = indexType;
        values.shape = indices.shape = input.shape;
        if (desc.Axis < values.shape.size()) values.shape[desc.Axis] = indices.shape[desc.Axis] = desc.K;
        desc.OutputValueTensor = descOf(values, input.shape.size());
        desc.OutputIndexTensor = descOf(indices, input.shape.size());

        auto device = ripple::Device::create(options);
        if (!device) return fail(exitFor(device.status()), device.status().message()); // Unsupported: 2
        auto op = device->compile(desc);
        if (!op) return fail(exitFor(op.status()), op.status().message());
        uint64_t vb = ripple::calcBufferTensorSize(desc.OutputValueTensor);
        uint64_t ib = ripple::calcBufferTensorSize(desc.OutputIndexTensor);
        Tensors t;
        if (ripple::Status s = makeTensors(device.value(), {&input}, {vb, ib}, t); !s)
            return fail(exitFor(s), s.message());
        if (ripple::Status s = device->execute(op.value(), t.bindings); !s)
            return fail(exitFor(s), s.message());
        values.data.resize(values.count() * ripple::elementSize(values.type));
        indices.data.resize(indices.count() * ripple::elementSize(indices.type));
        if (ripple::Status s = device->download(t.buffers[1], 0, values.data.data(), values.data.size()); !s)
            return fail(kOther, s.message());
        if (ripple::Status s = device->download(t.buffers[2], 0, indices.data.data(), indices.data.size());
            !s)
            return fail(kOther, s.message());
        if (device->validationMessageCount())
            return fail(kOther, "the validation layer reported " +
                                    std::to_string(device->validationMessageCount()) + " message(s)");
        if (!npy::save(args.values.at("output-values"), values, error)) return fail(kOther, error);
        if (!npy::save(args.values.at("output-indices"), indices, error)) {
            std::remove(args.values.at("output-values").c_str());
            return fail(kOther, error);
        }
        if (args.printAll) print("OutputValueTensor", values), print("OutputIndexTensor", indices);
        return kOk;
    }

    if (args.op != "scatter-nd" && args.op != "scatter-elements")
        return fail(kInvalid,
                    "unknown operator '" + args.op + "': use top-k, scatter-nd, scatter-elements or devices");
    for (const char* k : {"indices", "updates", "output"})
        if (!need(k)) return fail(kInvalid, args.op + ": --" + k + " is required");
    const std::string r = args.has("reduction") ? args.values.at("reduction") : "none";
    const ripple::ScatterReduction reduction = r == "add"   ? ripple::ScatterReduction::Add
                                               : r == "mul" ? ripple::ScatterReduction::Mul
                                               : r == "max" ? ripple::ScatterReduction::Max
                                               : r == "min" ? ripple::ScatterReduction::Min
                                                            : ripple::ScatterReduction::None;
    if (r != "none" && reduction == ripple::ScatterReduction::None)
        return fail(kInvalid, args.op + ": --reduction must be none, add, mul, max or min");
    npy::Array indices, updates;
    if (!npy::load(args.values.at("indices"), indices, error)) return fail(kInvalid, "--indices: " + error);
    if (!npy::load(args.values.at("updates"), updates, error)) return fail(kInvalid, "--updates: " + error);
    if (args.printAll) print("IndicesTensor", indices), print("UpdatesTensor", updates);
    size_t rank = std::max({input.shape.size(), indices.shape.size(), updates.shape.size()});
    npy::Array output;
    output.type = input.type;
    output.shape = input.shape;

    auto device = ripple::Device::create(options);
    if (!device) return fail(exitFor(device.status()), device.status().message()); // Unsupported: 2
    ripple::Result<ripple::Operator> op = ripple::Status(ripple::StatusCode::Internal, "not compiled");
    if (args.op == "scatter-nd") {
        ripple::ScatterNDDesc desc;
        desc.InputTensor = descOf(input, rank);
        desc.IndicesTensor = descOf(indices, rank);
        desc.UpdatesTensor = descOf(updates, rank);
        desc.OutputTensor = descOf(output, rank);
        desc.InputDimensionCount = static_cast<uint32_t>(input.shape.size());
        desc.IndicesDimensionCount = static_cast<uint32_t>(indices.shape.size());
        desc.Reduction = reduction;
        desc.Deterministic = args.deterministic;
        op = device->compile(desc);
    } else {
        ripple::ScatterElementsDesc desc;
        desc.InputTensor = descOf(input, rank);
        desc.IndicesTensor = descOf(indices, rank);
        desc.UpdatesTensor = descOf(updates, rank);
        desc.OutputTensor = descOf(output, rank);
        if (!need("axis") || !axisArg(input.shape.size(), desc.Axis))
            return fail(kInvalid, "scatter-elements: --axis must be an integer in [-rank, rank)");
        desc.Axis += static_cast<uint32_t>(rank - input.shape.size());
        desc.Reduction = reduction;
        desc.Deterministic = args.deterministic;
        op = device->compile(desc);
    }
    if (!op) return fail(exitFor(op.status()), op.status().message());
    Tensors t;
    if (ripple::Status s = makeTensors(device.value(), {&input, &indices, &updates},
                                       {(input.data.size() + 3) & ~size_t(3)}, t);
        !s)
        return fail(exitFor(s), s.message());
    if (ripple::Status s = device->execute(op.value(), t.bindings); !s) return fail(exitFor(s), s.message());
    output.data.resize(input.data.size());
    if (ripple::Status s = device->download(t.buffers[3], 0, output.data.data(), output.data.size()); !s)
        return fail(kOther, s.message());
    if (device->validationMessageCount())
        return fail(kOther, "the validation layer reported " +
                                std::to_string(device->validationMessageCount()) + " message(s)");
    if (!npy::save(args.values.at("output"), output, error)) return fail(kOther, error);
    if (args.printAll) print("OutputTensor", output);
    return kOk;
}

} // namespace

int main(int argc, char** argv) {
#if defined(_WIN32)
    // The arguments as UTF-8, from Windows' UTF-16 command line: argv is in the ANSI code page, which turns
    // characters outside it (a user's name in a path) into '?'. npy.cpp opens files by their wide names.
    int wideCount = 0;
    wchar_t** wide = CommandLineToArgvW(GetCommandLineW(), &wideCount);
    std::vector<std::string> utf8Args;
    std::vector<char*> utf8Argv;
    if (wide) {
        for (int i = 0; i < wideCount; ++i) {
            const int n = WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, nullptr, 0, nullptr, nullptr);
            std::string a(n > 0 ? static_cast<size_t>(n) : 1, '\0');
            if (n > 0) WideCharToMultiByte(CP_UTF8, 0, wide[i], -1, a.data(), n, nullptr, nullptr);
            a.resize(std::strlen(a.c_str()));
            utf8Args.push_back(std::move(a));
        }
        LocalFree(wide);
        for (std::string& a : utf8Args) utf8Argv.push_back(a.data());
        argc = wideCount;
        argv = utf8Argv.data();
    }
#endif
    Args args;
    std::string error;
    if (!parse(argc, argv, args, error)) return fail(kInvalid, error);
    if (args.op == "devices") return listDevices();
    return run(args);
}
