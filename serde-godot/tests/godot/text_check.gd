# Differential harness for Godot's text form (serde-godot tests/text_godot3_engine.rs).
# IN: JSON list of {"hex": var2bytes of a value (objects allowed), "text_hex": UTF-8 of our var2str}.
# OUT: for each: the engine's var2str of the value, and str2var of our text (var2bytes, type).
# Run: IN=in.json OUT=out.json godot3-server -s text_check.gd
extends SceneTree

const DIGITS = "0123456789abcdef"

func hex_to_bytes(h):
	var out = PoolByteArray()
	out.resize(h.length() / 2)
	for i in range(0, h.length(), 2):
		out[i / 2] = DIGITS.find(h[i]) * 16 + DIGITS.find(h[i + 1])
	return out

func _init():
	var f = File.new()
	f.open(OS.get_environment("IN"), File.READ)
	var inp = parse_json(f.get_as_text())
	f.close()
	var out = []
	for c in inp:
		var v = bytes2var(hex_to_bytes(c["hex"]), true)
		var ours = hex_to_bytes(c["text_hex"]).get_string_from_utf8()
		var p = str2var(ours)
		out.append({
			"text_hex": var2str(v).to_utf8().hex_encode(),
			"parsed_hex": var2bytes(p, true).hex_encode(),
			"parsed_type": typeof(p),
		})
	f.open(OS.get_environment("OUT"), File.WRITE)
	f.store_string(to_json(out))
	f.close()
	quit()
