"""Decodes blobs with the katsuba wheel (the oracle) and compares them with expected values.

Usage: python3 katsuba_oracle.py MANIFEST.json
The manifest is {"types": [paths], "cases": [case, ...]}. A case is
{"file" or "hex", "shallow", "flags", "mask", "expected", optional "manual", "bind", "types", "name"}:
the blob is read from `file` or given as `hex`; `types` (a list of paths) replaces the manifest's
type list for that case (lists are loaded once); `bind` strips the `BINd` magic and reads deep with
STATEFUL_FLAGS, as katsuba's CLI does for game files.

Values are compared in katsuba's JSON shape. Two normalizations apply to both sides: bytes that are
UTF-8 compare as text (katsuba returns std::string, and std::wstring that is not valid UTF-16, as
bytes), and a text holding `|` compares as the set of its `|`-separated parts (katsuba formats bit
enums in hash-map order).
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
    # (PointUInt and PointUChar are not exported by the module; their objects are.)
    if isinstance(v, (op.PointInt, op.PointFloat)) or type(v).__name__ in ("PointUInt", "PointUChar"):
        return {"x": v.x, "y": v.y}
    if isinstance(v, op.SizeInt):
        return {"width": v.width, "height": v.height}
    if isinstance(v, (op.RectInt, op.RectFloat)):
        return {"left": v.left, "top": v.top, "right": v.right, "bottom": v.bottom}
    return v


def norm(v):
    if isinstance(v, dict):
        if set(v) == {"$bytes_hex"}:
            raw = bytes.fromhex(v["$bytes_hex"])
            try:
                return norm(raw.decode("utf-8"))
            except UnicodeDecodeError:
                return v
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, str) and "|" in v:
        return ("$bits", tuple(sorted(p.strip() for p in v.split("|"))))
    return v


def main():
    manifest = json.load(open(sys.argv[1]))
    lists = {}

    def type_list(paths):
        key = tuple(paths)
        if key not in lists:
            lists[key] = op.TypeList.open_many(list(paths))
        return lists[key]

    default_types = manifest.get("types", [])
    passed = failed = 0
    for case in manifest["cases"]:
        tl = type_list(case.get("types", default_types))
        o = op.SerializerOptions()
        o.flags = case["flags"]
        o.shallow = case["shallow"]
        o.property_mask = case["mask"]
        o.manual_compression = case.get("manual", False)
        o.skip_unknown_types = False
        blob = bytes.fromhex(case["hex"]) if "hex" in case else open(case["file"], "rb").read()
        name = case.get("name", case.get("file"))
        if case.get("bind"):
            if blob[:4] != b"BINd":
                print(f"MISMATCH {name}: no BINd magic")
                failed += 1
                continue
            blob = blob[4:]
            o.shallow = False
            o.flags = 1
        try:
            got = conv(op.Serializer(o, tl).deserialize(blob), tl)
        except Exception as e:  # noqa: BLE001 - report every oracle failure
            print(f"MISMATCH {name}: katsuba failed: {e}")
            failed += 1
            continue
        if norm(got) != norm(case["expected"]):
            print(f"MISMATCH {name}:\n  katsuba: {json.dumps(got, default=repr)[:3000]}\n  ours:    {json.dumps(case['expected'])[:3000]}")
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
