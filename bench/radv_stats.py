#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What AMD's compilers make of each kernel variant, with no AMD GPU: RADV's null device.

Mesa's RADV compiles pipelines for any AMD family it knows when RADV_FORCE_FAMILY names one, with no GPU
(a "null" winsys), and reports ACO's statistics through VK_KHR_pipeline_executable_properties. This runs
ripple-kernel-stats (bench/kernel_stats.cpp) that way and keeps the figures that matter for a kernel's
speed: VGPRs (how many waves a SIMD holds), spills to scratch memory, code size and instructions.

ACO's figures are AMD's. Across 38 variants measured on the H100/H200 too (bench/NOTES.md, issue 59, tenth
session) NVIDIA's register count follows ACO's VGPRs (correlation 0.90) and NVIDIA's binary size is 2.7-5.4x
ACO's code size, so a large change here predicts one there.

  radv_stats.py [--stats EXE] [--family F]... SPV_DIR [NAME-PART...]      a table per family
  radv_stats.py ... --compare SPV_DIR_B SPV_DIR [NAME-PART...]            SPV_DIR_B -> SPV_DIR, changed only
  radv_stats.py ... --check SPV_DIR                                       the budgets below; exit 1 if over

Families: navi21 (RDNA2, gfx1030), gfx1100 (RDNA3), vega10 (GCN5), polaris10 (GCN4), ... (Mesa 22.3's names).
Exit 77 (CTest's skip) where RADV's driver file is missing.
"""
import argparse
import os
import re
import subprocess
import sys

RADV_ICD = "/usr/share/vulkan/icd.d/radeon_icd.x86_64.json"
# --check: a kernel's machine code over this is an instruction-cache hazard (bench/NOTES.md, issue 21: a
# final step of 163 KB on the H100 ran slower than three dispatches); the largest on main is about 51 KB.
CODE_BUDGET = 64 * 1024
# --check: variants known to spill on a family, and why they are left so. Each must still spill (a fixed one
# comes off the list) and no other may.
KNOWN_SPILLS = {
    # RDNA3 (Mesa 22.3's ACO gave these at most 132 VGPRs there, navi21 up to 176): the 32-entry
    # lists of 64-bit keys, and the lane merge's 32 entries a part, do not fit.
    "gfx1100": {
        "topk_lane.i64.k32", "topk_lane.i64.k32.small", "topk_lane.u64.k32", "topk_lane.u64.k32.small",
        "topk_lane_merge.b8.k32", "topk_lane_merge.b8.k32.small", "topk_lane_merge.b16.k32",
        "topk_lane_merge.b16.k32.small", "topk_lane_merge.b32.k32", "topk_lane_merge.b32.k32.small",
        "topk_lane_merge.b64.k32", "topk_lane_merge.b64.k32.small",
    },
}
FIELDS = ["VGPRs", "SGPRs", "Spilled VGPRs", "Spilled SGPRs", "Scratch size", "Code size", "Instructions",
          "LDS size", "Subgroups per SIMD"]


def stats(exe, family, spv, parts):
    """{variant: {field: int}} and the skipped variants' reasons, from ripple-kernel-stats on RADV."""
    env = dict(os.environ, RADV_FORCE_FAMILY=family, VK_DRIVER_FILES=RADV_ICD, VK_ICD_FILENAMES=RADV_ICD)
    run = subprocess.run([exe, spv] + parts, env=env, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit("radv_stats: %s on %s failed (%d): %s" % (exe, family, run.returncode, run.stderr[-2000:]))
    table, skipped = {}, {}
    for line in run.stdout.splitlines():
        m = re.match(r"(\S+): (.*)", line)
        if not m:
            continue
        if m.group(2).startswith("skipped"):
            skipped[m.group(1)] = m.group(2)
            continue
        values = {k.strip(): int(float(v)) for k, v in re.findall(r"([A-Za-z ]+)=([0-9.]+);", m.group(2))}
        if "VGPRs" in values:
            table[m.group(1)] = values
    if not table:
        sys.exit("radv_stats: no statistics from %s on %s (%s)" % (exe, family, run.stderr[-500:]))
    return table, skipped


def row(name, v):
    return "%-44s %4d %4d %5d %5d %7d %6d %6d %3d" % (
        name, v["VGPRs"], v["SGPRs"], v.get("Spilled VGPRs", 0), v.get("Spilled SGPRs", 0),
        v.get("Scratch size", 0), v["Code size"], v["Instructions"], v.get("Subgroups per SIMD", 0))


HEADER = "%-44s %4s %4s %5s %5s %7s %6s %6s %3s" % (
    "variant", "VGPR", "SGPR", "spV", "spS", "scratch", "code", "instr", "wps")


def spills(v):
    return v.get("Spilled VGPRs", 0) > 0 or v.get("Scratch size", 0) > 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--stats", default="build/bench/ripple-kernel-stats", help="ripple-kernel-stats")
    ap.add_argument("--family", action="append", help="RADV_FORCE_FAMILY (default navi21 and gfx1100)")
    ap.add_argument("--compare", metavar="SPV_DIR_B", help="the build to compare against")
    ap.add_argument("--check", action="store_true", help="the budgets: spills and code size")
    ap.add_argument("spv")
    ap.add_argument("parts", nargs="*")
    a = ap.parse_args()
    if not os.path.exists(RADV_ICD):
        print("radv_stats: %s is missing (Debian: mesa-vulkan-drivers); skipped" % RADV_ICD)
        return 77
    families = a.family or ["navi21", "gfx1100"]
    failures = []
    for family in families:
        now, skipped = stats(a.stats, family, a.spv, a.parts)
        print("== %s: %d variants compiled, %d skipped (a capability the family lacks)" %
              (family, len(now), len(skipped)))
        if a.compare:
            before, _ = stats(a.stats, family, a.compare, a.parts)
            print("   " + HEADER)
            for name in sorted(set(now) | set(before)):
                b, n = before.get(name), now.get(name)
                if b and n and all(b.get(f) == n.get(f) for f in FIELDS):
                    continue
                print(" - " + (row(name, b) if b else "%-44s (absent)" % name))
                print(" + " + (row(name, n) if n else "%-44s (absent)" % name))
        elif a.check:
            known = KNOWN_SPILLS.get(family, set())
            for name, v in sorted(now.items()):
                if spills(v) and name not in known:
                    failures.append("%s %s spills: %s" % (family, name, row(name, v)))
                if v["Code size"] > CODE_BUDGET:
                    failures.append("%s %s has %d bytes of code (budget %d)" % (
                        family, name, v["Code size"], CODE_BUDGET))
            for name in sorted(known):
                if name in now and not spills(now[name]):
                    failures.append("%s %s no longer spills: take it off KNOWN_SPILLS" % (family, name))
                if name not in now and not a.parts:
                    failures.append("%s %s is not built: take it off KNOWN_SPILLS" % (family, name))
            print("   largest code: %d bytes (%s); spilling: %d (known: %d)" % (
                max(v["Code size"] for v in now.values()),
                max(now, key=lambda k: now[k]["Code size"]), sum(spills(v) for v in now.values()),
                len(known)))
        else:
            print("   " + HEADER)
            for name, v in sorted(now.items()):
                print("   " + row(name, v))
    for f in failures:
        print("FAIL: " + f)
    if a.check and not failures:
        print("ok: no variant over %d bytes of code, no spill outside KNOWN_SPILLS, on %s" % (
            CODE_BUDGET, ", ".join(families)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
