//! A TCP game server for Godot clients: a GDScript `StreamPeerTCP` sends commands with
//! `put_var()` and reads the replies with `get_var()` — the matching client is in
//! `serde-godot/README.md`.
//!
//! ```text
//! cargo run --example godot_tcp_server                    # Godot 4 clients, 127.0.0.1:4242
//! cargo run --example godot_tcp_server -- --godot3 0.0.0.0:4242
//! ```
//!
//! Every command is a Dictionary such as `{"cmd": "move", "target": Vector2(3, 4), "run": true}`;
//! the reply is a struct, which GDScript receives as a Dictionary
//! `{"ok": true, "tick": 1, "position": Vector2(1.2, 1.6), "message": "moving"}`. Framing is
//! `StreamPeer.put_var`'s (a little-endian length, then the Variant), through serde-godot's tokio
//! codec, which refuses frames above 8 MiB and anything that is not a valid Godot Variant of the
//! expected shape (the connection is then closed).

use std::net::SocketAddr;

use futures_util::{SinkExt, StreamExt};
use serde::{Deserialize, Serialize};
use serde_godot::framing::{Framing, GodotCodec};
use serde_godot::{Options, Vector2, Version};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

/// What the client sends.
#[derive(Debug, Deserialize)]
pub(crate) struct Command {
    /// `"move"`, `"where"` or `"quit"`.
    pub(crate) cmd: String,
    /// Where to go (for `"move"`).
    #[serde(default)]
    pub(crate) target: Vector2,
    /// Run instead of walk.
    #[serde(default)]
    pub(crate) run: bool,
}

/// What the server answers.
#[derive(Debug, Serialize)]
pub(crate) struct Reply {
    /// Whether the command was understood.
    pub(crate) ok: bool,
    /// Commands handled on this connection.
    pub(crate) tick: u64,
    /// The player's position after the command.
    pub(crate) position: Vector2,
    /// A human-readable note.
    pub(crate) message: String,
}

/// One player's state.
#[derive(Default)]
struct Player {
    position: Vector2,
    tick: u64,
}

impl Player {
    fn handle(&mut self, cmd: &Command) -> Reply {
        self.tick += 1;
        let (ok, message) = match cmd.cmd.as_str() {
            "move" => {
                let step = if cmd.run { 2.0 } else { 1.0 };
                let (dx, dy) = (cmd.target.x - self.position.x, cmd.target.y - self.position.y);
                let distance = (dx * dx + dy * dy).sqrt();
                if distance <= step {
                    self.position = cmd.target;
                    (true, "arrived".to_owned())
                } else {
                    self.position.x += dx / distance * step;
                    self.position.y += dy / distance * step;
                    (true, "moving".to_owned())
                }
            }
            "where" => (true, "here".to_owned()),
            "quit" => (true, "bye".to_owned()),
            other => (false, format!("unknown command {other:?}")),
        };
        Reply { ok, tick: self.tick, position: self.position, message }
    }
}

/// Serves one client until it disconnects, quits or sends something invalid.
async fn session(stream: TcpStream, opts: Options) {
    let peer = stream.peer_addr().map(|a| a.to_string()).unwrap_or_default();
    let mut framed = Framed::new(stream, GodotCodec::<Command>::new(opts, Framing::StreamPeer));
    let mut player = Player::default();
    while let Some(frame) = framed.next().await {
        let cmd = match frame {
            Ok(cmd) => cmd,
            Err(e) => {
                eprintln!("{peer}: closing, bad frame: {e}");
                return;
            }
        };
        let reply = player.handle(&cmd);
        if let Err(e) = framed.send(&reply).await {
            eprintln!("{peer}: closing, {e}");
            return;
        }
        if cmd.cmd == "quit" {
            return;
        }
    }
}

/// Accepts clients forever, one task each.
pub(crate) async fn serve(listener: TcpListener, opts: Options) -> std::io::Result<()> {
    loop {
        let (stream, _) = listener.accept().await?;
        tokio::spawn(session(stream, opts));
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut opts = Options::new();
    let mut addr: SocketAddr = "127.0.0.1:4242".parse().expect("address");
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--godot3" => opts = opts.version(Version::Godot3),
            other => addr = other.parse().map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?,
        }
    }
    let listener = TcpListener::bind(addr).await?;
    println!("serde-godot example server listening on {} ({:?})", listener.local_addr()?, opts);
    serve(listener, opts).await
}
