// Game-server code written against bincode 1.3, as it is found in the wild. It is compiled twice
// by tests/bincode_drop_in.rs: once with `bincode` = the real bincode 1.3.3 crate, once with
// `bincode` = `serde_godot::bincode`. Nothing in here knows which one it got.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use bincode::Options;
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum ClientMsg {
    Join { name: String, version: u32 },
    Move { x: f32, y: f32 },
    Chat(String),
    Leave,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Player {
    pub id: u64,
    pub name: String,
    pub pos: (f32, f32),
    pub hp: i32,
    pub inventory: Vec<u16>,
    pub guild: Option<String>,
}

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub struct Snapshot {
    pub tick: u64,
    pub players: Vec<Player>,
}

pub fn snapshot() -> Snapshot {
    let player = |id: u64, name: &str| Player {
        id,
        name: name.to_owned(),
        pos: (id as f32 * 1.5, -2.25),
        hp: 100 - id as i32,
        inventory: vec![1, 2, id as u16],
        guild: if id % 2 == 0 { Some("Red".to_owned()) } else { None },
    };
    Snapshot { tick: 4242, players: vec![player(1, "ann"), player(2, "bob"), player(3, "cy")] }
}

pub fn client_msgs() -> Vec<ClientMsg> {
    vec![
        ClientMsg::Join { name: "ann".to_owned(), version: 3 },
        ClientMsg::Move { x: 1.5, y: -3.0 },
        ClientMsg::Chat("hello there".to_owned()),
        ClientMsg::Leave,
    ]
}

/// Sends one message on a stream.
pub fn send<W: Write>(stream: &mut W, msg: &ClientMsg) -> bincode::Result<()> {
    bincode::serialize_into(stream, msg)
}

/// Reads messages one after another until the peer closes the connection.
pub fn read_until_closed<R: Read>(mut stream: R) -> Result<Vec<ClientMsg>, Box<dyn std::error::Error + Send + Sync>> {
    let mut msgs = Vec::new();
    loop {
        match bincode::deserialize_from::<_, ClientMsg>(&mut stream) {
            Ok(msg) => msgs.push(msg),
            Err(e) => match *e {
                bincode::ErrorKind::Io(ref io) if io.kind() == io::ErrorKind::UnexpectedEof => break,
                _ => return Err(e),
            },
        }
    }
    Ok(msgs)
}

/// Hardened servers read with a per-message limit; `options()` has its own encoding in bincode
/// 1.3 (varint), so both ends use it.
pub fn send_with_options<W: Write>(stream: W, msg: &ClientMsg) -> bincode::Result<()> {
    bincode::options().serialize_into(stream, msg)
}

/// Reads one message with a per-message limit.
pub fn read_limited<R: Read>(stream: R, limit: u64) -> bincode::Result<ClientMsg> {
    bincode::options().with_limit(limit).allow_trailing_bytes().deserialize_from(stream)
}

pub fn is_size_limit(e: &bincode::Error) -> bool {
    matches!(**e, bincode::ErrorKind::SizeLimit)
}

/// `?` on io errors inside a function returning bincode's result.
pub fn save_and_load(path: &std::path::Path, snap: &Snapshot) -> Result<Snapshot, bincode::Error> {
    let file = std::fs::File::create(path)?;
    bincode::serialize_into(io::BufWriter::new(file), snap)?;
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.read_to_end(&mut bytes)?;
    let size = bincode::serialized_size(snap)?;
    assert_eq!(size, bytes.len() as u64);
    let back: Snapshot = bincode::deserialize(&bytes)?;
    Ok(back)
}

#[test]
fn several_messages_from_one_tcp_stream_then_eof() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        for msg in client_msgs() {
            send(&mut stream, &msg).unwrap();
        }
    });
    let (stream, _) = listener.accept().unwrap();
    let msgs = read_until_closed(stream).unwrap();
    client.join().unwrap();
    assert_eq!(msgs, client_msgs());
}

#[test]
fn deserialize_from_leaves_the_next_bytes_in_the_reader() {
    let mut wire = Vec::new();
    for msg in client_msgs() {
        bincode::serialize_into(&mut wire, &msg).unwrap();
    }
    wire.extend_from_slice(b"TAIL");
    let mut reader = &wire[..];
    for msg in client_msgs() {
        let got: ClientMsg = bincode::deserialize_from(&mut reader).unwrap();
        assert_eq!(got, msg);
    }
    assert_eq!(reader, b"TAIL");
}

#[test]
fn options_are_copy_and_limit_both_ways() {
    let opts = bincode::options().with_limit(16);
    let copy = opts;
    let big = ClientMsg::Chat("x".repeat(64));
    let err = copy.serialize(&big).unwrap_err();
    assert!(is_size_limit(&err), "{err}");
    let mut bytes = Vec::new();
    send_with_options(&mut bytes, &big).unwrap();
    let err = read_limited(&bytes[..], 16).unwrap_err();
    assert!(is_size_limit(&err), "{err}");
    let mut small = Vec::new();
    send_with_options(&mut small, &ClientMsg::Leave).unwrap();
    assert_eq!(read_limited(&small[..], 1024).unwrap(), ClientMsg::Leave);
    let _ = opts.with_no_limit().with_little_endian().with_fixint_encoding().reject_trailing_bytes();
}

#[test]
fn turbofish_free_functions_and_std_error() {
    let snap = snapshot();
    let bytes = bincode::serialize::<Snapshot>(&snap).unwrap();
    let back = bincode::deserialize::<Snapshot>(&bytes).unwrap();
    assert_eq!(back, snap);
    let size: u64 = bincode::serialized_size::<Snapshot>(&snap).unwrap();
    assert_eq!(size, bytes.len() as u64);
    let opts = bincode::DefaultOptions::new().with_limit(1 << 20);
    let with_opts = opts.serialize::<Snapshot>(&snap).unwrap();
    assert_eq!(opts.deserialize::<Snapshot>(&with_opts).unwrap(), snap);
    // A cut message is an Io(UnexpectedEof) error, and the error is a std error that is Send + Sync.
    let err: bincode::Error = bincode::deserialize::<Snapshot>(&bytes[..bytes.len() - 3]).unwrap_err();
    assert!(matches!(*err, bincode::ErrorKind::Io(ref e) if e.kind() == io::ErrorKind::UnexpectedEof), "{err:?}");
    let boxed: Box<dyn std::error::Error + Send + Sync> = err;
    assert!(!boxed.to_string().is_empty());
    let from_io: bincode::Error = io::Error::other("disk on fire").into();
    assert!(matches!(*from_io, bincode::ErrorKind::Io(_)));
}

#[test]
fn save_and_load_with_question_marks() {
    let dir = std::env::temp_dir().join(format!("bincode-drop-in-{}-{}", std::process::id(), module_path!()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("snap.bin");
    assert_eq!(save_and_load(&path, &snapshot()).unwrap(), snapshot());
    let missing = save_and_load(std::path::Path::new("/nonexistent/dir/x.bin"), &snapshot()).unwrap_err();
    assert!(matches!(*missing, bincode::ErrorKind::Io(_)));
    std::fs::remove_dir_all(&dir).unwrap();
}
