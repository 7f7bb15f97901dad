"""Decodes blobs with the katsuba wheel (the oracle) and compares them with expected values.

Usage: python3 katsuba_oracle.py MANIFEST.json
The manifest lists {"types": [paths], "cases": [{"file", "shallow", "flags", "mask", "expected"}]}.
Prints one line per mismatch and a summary `N passed, M failed`; exits 1 on any mismatch.
"""
import json
import sys

from katsuba import op


def conv(v, tl):
    if isinstance(v, op.LazyObject):
        d = {"$__type": tl.name_for(v.type_hash)}
        for k, x in v.items():
            d[k] = conv(x, tl)
        return d
    if isinstance(v, op.LazyList):
        return [conv(x, tl) for x in v]
    if isinstance(v, bytes):
        try:
            return v.decode("utf-8")
        except UnicodeDecodeError:
            return {"$bytes_hex": v.hex()}
    if isinstance(v, op.Color):
        return {"r": v.r, "g": v.g, "b": v.b, "a": v.a}
    if isinstance(v, op.Vec3):
        return {"x": v.x, "y": v.y, "z": v.z}
    if isinstance(v, op.Quaternion):
        return {"w": v.w, "x": v.x, "y": v.y, "z": v.z}
    if isinstance(v, op.Euler):
        return {"pitch": v.pitch, "yaw": v.yaw, "roll": v.roll}
    if isinstance(v, op.Matrix):
        return {"i": list(v.i), "j": list(v.j), "k": list(v.k)}
    if isinstance(v, (op.PointInt, op.PointFloat)):
        return {"x": v.x, "y": v.y}
    if isinstance(v, op.SizeInt):
        return {"width": v.width, "height": v.height}
    if isinstance(v, (op.RectInt, op.RectFloat)):
        return {"left": v.left, "top": v.top, "right": v.right, "bottom": v.bottom}
    return v


def main():
    manifest = json.load(open(sys.argv[1]))
    tl = op.TypeList.open_many(manifest["types"])
    passed = failed = 0
    for case in manifest["cases"]:
        o = op.SerializerOptions()
        o.flags = case["flags"]
        o.shallow = case["shallow"]
        o.property_mask = case["mask"]
        o.manual_compression = case.get("manual", False)
        o.skip_unknown_types = False
        blob = open(case["file"], "rb").read()
        try:
            got = conv(op.Serializer(o, tl).deserialize(blob), tl)
        except Exception as e:  # noqa: BLE001 - report every oracle failure
            print(f"MISMATCH {case['file']}: katsuba failed: {e}")
            failed += 1
            continue
        if got != case["expected"]:
            print(f"MISMATCH {case['file']}:\n  katsuba: {json.dumps(got)[:2000]}\n  ours:    {json.dumps(case['expected'])[:2000]}")
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
