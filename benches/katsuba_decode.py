"""Times katsuba's decoder (the katsuba wheel: its Rust decoder behind a Python call) on the blobs
`cargo bench --bench katsuba` wrote, and checks that it read each one.

Usage: python3 katsuba_decode.py DIR
DIR holds types.json and manifest.json: {"cases": [{"name", "file", "shallow", "flags", "mask", "list"}]}.
Prints one JSON line per case: {"name", "mean_ns", "min_ns", "iters", "len"} (`len`: how many
elements katsuba read in the root's property `list`, checked by the bench).
"""
import json
import sys
import time

from katsuba import op


def main():
    d = sys.argv[1]
    manifest = json.load(open(f"{d}/manifest.json"))
    tl = op.TypeList.open_many([f"{d}/types.json"])
    for case in manifest["cases"]:
        o = op.SerializerOptions()
        o.flags = case["flags"]
        o.shallow = case["shallow"]
        o.property_mask = case["mask"]
        o.skip_unknown_types = False
        ser = op.Serializer(o, tl)
        blob = open(case["file"], "rb").read()
        # A decode that misread would fail or leave data: make katsuba read it once and show the root.
        first = ser.deserialize(blob)
        assert tl.name_for(first.type_hash), case["name"]
        top = dict(first.items())[case["list"]]
        # Warm up ~1 s, then time batches for ~3 s (as the criterion rows do).
        times = []
        end = time.perf_counter() + 1.0
        while time.perf_counter() < end:
            ser.deserialize(blob)
        end = time.perf_counter() + 3.0
        while time.perf_counter() < end or len(times) < 10:
            t0 = time.perf_counter_ns()
            ser.deserialize(blob)
            times.append(time.perf_counter_ns() - t0)
        print(json.dumps({"name": case["name"], "mean_ns": sum(times) / len(times), "min_ns": min(times),
                          "iters": len(times), "len": len(top)}), flush=True)


main()
