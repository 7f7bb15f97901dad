# A Godot 3 StreamPeerTCP client for examples/godot_tcp_server.rs (run with --godot3): sends two
# commands with put_var, reads the replies with get_var, and writes what it got to $OUT as JSON.
# Run: PORT=4242 OUT=out.json godot3-server -s tcp_client_godot3.gd
extends SceneTree

func _wait(peer, cond_bytes):
	var t = 0
	while t < 1000:
		if cond_bytes == 0 and peer.get_status() == StreamPeerTCP.STATUS_CONNECTED:
			return true
		if cond_bytes > 0 and peer.get_available_bytes() >= cond_bytes:
			return true
		OS.delay_msec(5)
		t += 1
	return false

func _init():
	var peer = StreamPeerTCP.new()
	peer.connect_to_host("127.0.0.1", int(OS.get_environment("PORT")))
	var out = {"replies": []}
	if not _wait(peer, 0):
		out["error"] = "could not connect"
	else:
		for cmd in [{"cmd": "move", "target": Vector2(3, 4), "run": true}, {"cmd": "where"}]:
			peer.put_var(cmd)
			if not _wait(peer, 4):
				out["error"] = "no reply"
				break
			var reply = peer.get_var()
			out["replies"].append({
				"typeof": typeof(reply),
				"ok": reply["ok"],
				"tick": reply["tick"],
				"position_type": typeof(reply["position"]),
				"x": reply["position"].x,
				"y": reply["position"].y,
				"message": reply["message"],
				"var2str": var2str(reply),
			})
	var f = File.new()
	f.open(OS.get_environment("OUT"), File.WRITE)
	f.store_string(JSON.print(out))
	f.close()
	quit()
