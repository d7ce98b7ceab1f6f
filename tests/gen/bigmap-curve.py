#!/usr/bin/env python3
"""The big-map curve: compile times and peak memory of realistic generated maps by size.

    tests/gen/bigmap-curve.py --build build [--sizes 5000,20000] [--runs 3] [--seed 7]
                              [--timeout 900] [--keep DIR] [-- COMPILE OPTIONS]

For each size, allium-genmap writes a map in the realistic style, then allium-compile
--json compiles it --runs times, the sizes taken in turn (5k, 20k, 5k, 20k, ...) so that
a machine shared with other work loads every size alike. Each compile lights the map to
its first lit frame only (--rad-residual 1: every light source shot, no reflected light),
unless the options after -- say otherwise. Prints one JSON object: per size the medians of
each stage's milliseconds (collision trees, portals, coarse and tight PVS, first lit
frame, the whole compile), of the processor time the compile took (cpu_s: user and system,
which other work on the machine inflates less than the wall time) and of the peak resident
memory, with the counts of the map; a
run that passed --timeout or failed is counted in "failed" and left out of the medians.
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def stage_figures(report):
    stages = report["stages"]
    pvs = stages.get("pvs") or {}
    rad = stages.get("rad") or {}
    return {
        "compile_ms": report.get("compile_ms"),
        "collision_ms": stages["bsp"]["ms"],
        "portals_ms": stages["portals"]["ms"],
        "coarse_pvs_ms": pvs.get("coarse_ms"),
        "tight_pvs_ms": pvs.get("tight_ms"),
        "first_lit_frame_ms": rad.get("ms"),
        "peak_rss_mb": report["peak_rss_kb"] / 1024.0,
    }


def median_of(runs, key):
    values = [r[key] for r in runs if r.get(key) is not None]
    return round(statistics.median(values), 1) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True, help="the meson build folder")
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--keep", help="write the maps here and keep them")
    parser.add_argument("options", nargs="*", help="allium-compile options (after --)")
    args = parser.parse_args()
    genmap = os.path.join(args.build, "tests", "allium-genmap")
    compiler = os.path.join(args.build, "data", "tools", "allium-compile")
    for program in (genmap, compiler):
        if not os.access(program, os.X_OK):
            sys.exit(f"bigmap-curve: {program} is missing: build first (ninja -C {args.build})")
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sys.exit(f"bigmap-curve: --sizes {args.sizes}: a comma-separated list of brush counts")
    options = args.options or ["--rad-residual", "1"]

    folder = args.keep or tempfile.mkdtemp(prefix="allium-bigmap-")
    os.makedirs(folder, exist_ok=True)
    maps = {}
    for size in sizes:
        path = os.path.join(folder, f"realistic-{size}-{args.seed}.map")
        subprocess.run([genmap, "--style", "realistic", "--brushes", str(size), "--seed",
                        str(args.seed), "-o", path], check=True, stderr=subprocess.DEVNULL)
        maps[size] = path

    runs = {size: [] for size in sizes}
    failed = {size: 0 for size in sizes}
    counts = {}
    for _ in range(args.runs):
        for size in sizes:
            start = time.monotonic()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            try:
                done = subprocess.run([compiler, "--json", "--no-cache", *options, maps[size]],
                                      capture_output=True, text=True, timeout=args.timeout)
            except subprocess.TimeoutExpired:
                failed[size] += 1
                continue
            if done.returncode != 0:
                failed[size] += 1
                continue
            report = json.loads(done.stdout)
            figures = stage_figures(report)
            figures["wall_ms"] = (time.monotonic() - start) * 1000
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            figures["cpu_s"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            runs[size].append(figures)
            counts[size] = {
                "brushes": report["brushes"],
                "collision_nodes": report["stages"]["bsp"].get("nodes"),
                "portals": report["stages"]["portals"].get("portals"),
                "vis_leaves": report["stages"]["portals"].get("leaves"),
                "leak": report.get("leak") is not None,
            }
    result = {"seed": args.seed, "runs": args.runs, "options": options, "sizes": []}
    for size in sizes:
        entry = {"requested_brushes": size, "failed": failed[size], **counts.get(size, {})}
        for key in ("compile_ms", "wall_ms", "cpu_s", "collision_ms", "portals_ms", "coarse_pvs_ms",
                    "tight_pvs_ms", "first_lit_frame_ms", "peak_rss_mb"):
            entry[key] = median_of(runs[size], key)
        result["sizes"].append(entry)
    if not args.keep:
        for path in maps.values():
            os.remove(path)
        os.rmdir(folder)
    json.dump(result, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
