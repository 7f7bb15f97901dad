// Game-server code written against bincode 2's serde API. Compiled twice by
// tests/bincode_drop_in.rs: with `bincode` = the real bincode 2.0.1 crate and with
// `bincode` = `serde_godot::bincode`.

use std::io::{self, Read, Write};
use std::net::{TcpListener, TcpStream};

use bincode::config::{self, Configuration};
use bincode::error::{DecodeError, EncodeError};
use serde::{Deserialize, Serialize};

const CONFIG: Configuration = config::standard();

#[derive(Serialize, Deserialize, Debug, PartialEq, Clone)]
pub enum Msg {
    Hello { name: String },
    Input { seq: u32, keys: Vec<u8>, aim: (f32, f32) },
    Ping(u64),
    Bye,
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
pub struct Borrowed<'a> {
    pub name: &'a str,
    pub tick: u32,
}

pub fn msgs() -> Vec<Msg> {
    vec![
        Msg::Hello { name: "ann".to_owned() },
        Msg::Input { seq: 7, keys: vec![1, 2, 3], aim: (0.5, -0.25) },
        Msg::Ping(123_456_789_012),
        Msg::Bye,
    ]
}

pub fn encode(msg: &Msg) -> Result<Vec<u8>, EncodeError> {
    bincode::serde::encode_to_vec(msg, CONFIG)
}

/// Framing by hand: decode what is complete in `buf`, keep the rest for later.
pub fn drain_complete(buf: &mut Vec<u8>) -> Result<Vec<Msg>, DecodeError> {
    let mut out = Vec::new();
    loop {
        match bincode::serde::decode_from_slice::<Msg, _>(&buf[..], CONFIG) {
            Ok((msg, used)) => {
                buf.drain(..used);
                out.push(msg);
            }
            Err(DecodeError::UnexpectedEnd { .. }) => return Ok(out),
            Err(e) => return Err(e),
        }
    }
}

/// Reads messages from a stream until the peer closes it.
pub fn read_until_closed<R: Read>(mut stream: R) -> Result<Vec<Msg>, Box<dyn std::error::Error + Send + Sync>> {
    let mut out = Vec::new();
    loop {
        match bincode::serde::decode_from_std_read::<Msg, _, _>(&mut stream, config::standard().with_limit::<4096>()) {
            Ok(msg) => out.push(msg),
            Err(DecodeError::Io { inner, .. }) if inner.kind() == io::ErrorKind::UnexpectedEof => return Ok(out),
            Err(e) => return Err(e.into()),
        }
    }
}

pub fn write_all_msgs<W: Write>(stream: &mut W) -> Result<usize, EncodeError> {
    let mut total = 0;
    for msg in msgs() {
        total += bincode::serde::encode_into_std_write(&msg, stream, CONFIG)?;
    }
    Ok(total)
}

#[test]
fn framing_by_hand_one_byte_at_a_time() {
    let mut wire = Vec::new();
    for msg in msgs() {
        wire.extend_from_slice(&encode(&msg).unwrap());
    }
    let mut buf = Vec::new();
    let mut got = Vec::new();
    for &b in &wire {
        buf.push(b);
        got.extend(drain_complete(&mut buf).unwrap());
    }
    assert_eq!(got, msgs());
    assert!(buf.is_empty());
}

#[test]
fn several_messages_from_one_tcp_stream() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = std::thread::spawn(move || {
        let mut stream = TcpStream::connect(addr).unwrap();
        write_all_msgs(&mut stream).unwrap()
    });
    let (stream, _) = listener.accept().unwrap();
    let got = read_until_closed(stream).unwrap();
    assert!(client.join().unwrap() > 0);
    assert_eq!(got, msgs());
}

#[test]
fn slices_borrowing_and_limits() {
    let mut slice = [0u8; 256];
    let n = bincode::serde::encode_into_slice(Msg::Ping(5), &mut slice, CONFIG).unwrap();
    let (back, used): (Msg, usize) = bincode::serde::decode_from_slice(&slice[..n], CONFIG).unwrap();
    assert_eq!((back, used), (Msg::Ping(5), n));
    let mut tiny = [0u8; 1];
    assert!(matches!(
        bincode::serde::encode_into_slice(Msg::Ping(5), &mut tiny, CONFIG),
        Err(EncodeError::UnexpectedEnd)
    ));

    let bytes = bincode::serde::encode_to_vec(Borrowed { name: "ann", tick: 9 }, CONFIG).unwrap();
    let (b, used) = bincode::serde::borrow_decode_from_slice::<Borrowed<'_>, _>(&bytes, CONFIG).unwrap();
    assert_eq!((b, used), (Borrowed { name: "ann", tick: 9 }, bytes.len()));

    let big = encode(&Msg::Hello { name: "x".repeat(100) }).unwrap();
    let limited = config::standard().with_limit::<32>();
    let copy = limited;
    let err = bincode::serde::decode_from_slice::<Msg, _>(&big, copy).unwrap_err();
    assert!(matches!(err, DecodeError::LimitExceeded), "{err:?}");
    let err = bincode::serde::decode_from_std_read::<Msg, _, _>(&mut &big[..], limited).unwrap_err();
    assert!(matches!(err, DecodeError::LimitExceeded), "{err:?}");
    let boxed: Box<dyn std::error::Error + Send + Sync> = Box::new(err);
    assert!(!boxed.to_string().is_empty());
    let _legacy: Configuration<config::LittleEndian, config::Fixint, config::NoLimit> = config::legacy();
    let _other = config::standard().with_big_endian().with_fixed_int_encoding().with_no_limit();
}
