//! Wire framing: StreamPeer / FileAccess length prefixes (both byte orders), PacketPeerStream,
//! datagrams, the blocking helpers and the tokio codec.

use bytes::BytesMut;
use serde_godot::framing::{self, Framing, GodotCodec};
use serde_godot::{ErrorKind, Options, Variant, Vector2};
use tokio_util::codec::{Decoder, Encoder};

fn value() -> Variant {
    Variant::from([("pos", Variant::from(Vector2::new(1.0, 2.0))), ("hp", Variant::Int(90))])
}

#[test]
fn every_framing_round_trips_and_prefixes_the_length() {
    let opts = Options::new();
    let body = value().to_bytes(&opts).unwrap();
    for framing in [Framing::StreamPeer, Framing::StreamPeerBigEndian, Framing::PacketPeerStream, Framing::Datagram] {
        let frame = framing::to_frame(&value(), &opts, framing).unwrap();
        let prefix = &frame[..framing.prefix_len()];
        match framing {
            Framing::StreamPeerBigEndian => assert_eq!(prefix, (body.len() as u32).to_be_bytes()),
            Framing::Datagram => assert!(prefix.is_empty()),
            _ => assert_eq!(prefix, (body.len() as u32).to_le_bytes()),
        }
        assert_eq!(&frame[framing.prefix_len()..], &body[..]);
        let (back, used): (Variant, usize) = framing::decode_frame(&frame, &opts, framing).unwrap().unwrap();
        assert_eq!((back, used), (value(), frame.len()));
        let back: Variant = framing::read_frame(&frame[..], &opts, framing).unwrap();
        assert_eq!(back, value());
        let mut written = Vec::new();
        framing::write_frame(&mut written, &value(), &opts, framing).unwrap();
        assert_eq!(written, frame);
    }
}

#[test]
fn partial_frames_wait_for_more_bytes() {
    let opts = Options::new();
    let frame = framing::to_frame(&value(), &opts, Framing::StreamPeer).unwrap();
    for cut in 0..frame.len() {
        assert!(framing::decode_frame::<Variant>(&frame[..cut], &opts, Framing::StreamPeer).unwrap().is_none());
    }
    // A frame whose variant doesn't fill it exactly is an error (with the offset in the frame).
    let mut padded = frame.clone();
    padded[0] += 4;
    padded.extend_from_slice(&[0; 4]);
    let err = framing::decode_frame::<Variant>(&padded, &opts, Framing::StreamPeer).unwrap_err();
    assert!(matches!(err.kind(), ErrorKind::TrailingBytes(4)));
    assert_eq!(err.offset(), Some(frame.len()));
}

#[test]
fn tokio_codec_splits_a_stream_into_values() {
    let opts = Options::new();
    let mut codec = GodotCodec::<Variant>::new(opts, Framing::StreamPeer);
    let mut wire = BytesMut::new();
    for i in 0..3 {
        codec.encode(Variant::from([("i", i)]), &mut wire).unwrap();
    }
    // Feed it byte by byte.
    let all = wire.split();
    let mut buf = BytesMut::new();
    let mut got = Vec::new();
    for b in all.iter() {
        buf.extend_from_slice(&[*b]);
        while let Some(v) = codec.decode(&mut buf).unwrap() {
            got.push(v);
        }
    }
    assert_eq!(got, (0..3).map(|i| Variant::from([("i", i)])).collect::<Vec<_>>());
    assert!(buf.is_empty());
}

#[test]
fn tokio_codec_enforces_max_size_both_ways() {
    let opts = Options::new().max_size(64);
    let mut codec = GodotCodec::<Variant>::new(opts, Framing::StreamPeer);
    // A prefix announcing 1 MiB fails as soon as it arrives.
    let mut buf = BytesMut::from(&(1u32 << 20).to_le_bytes()[..]);
    assert!(matches!(codec.decode(&mut buf).unwrap_err().kind(), ErrorKind::SizeLimit { .. }));
    let mut out = BytesMut::new();
    let big = serde_godot::PackedByteArray(vec![0; 100]);
    assert!(matches!(codec.encode(&big, &mut out).unwrap_err().kind(), ErrorKind::SizeLimit { .. }));
    assert!(out.is_empty());
}

#[test]
fn tokio_codec_typed_decode_and_big_endian() {
    #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
    struct Hello {
        name: String,
        version: u32,
    }
    let opts = Options::new();
    let mut codec = GodotCodec::<Hello>::new(opts, Framing::StreamPeerBigEndian);
    let mut wire = BytesMut::new();
    codec.encode(Hello { name: "client".into(), version: 4 }, &mut wire).unwrap();
    assert_eq!(wire[..3], [0, 0, 0]);
    assert_eq!(codec.decode(&mut wire).unwrap(), Some(Hello { name: "client".into(), version: 4 }));
    // A frame of the wrong shape is an error for the typed codec.
    let mut wrong = BytesMut::new();
    GodotCodec::<Variant>::new(opts, Framing::StreamPeerBigEndian).encode(Variant::Int(1), &mut wrong).unwrap();
    assert!(codec.decode(&mut wrong).is_err());
}

#[test]
fn tokio_codec_over_a_real_socket() {
    use futures_util::{SinkExt, StreamExt};
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let server = tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let mut framed = tokio_util::codec::Framed::new(stream, GodotCodec::<Variant>::default());
            while let Some(v) = framed.next().await {
                let v = v.unwrap();
                framed.send(&v).await.unwrap();
            }
        });
        let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let mut client = tokio_util::codec::Framed::new(stream, GodotCodec::<Variant>::default());
        client.send(value()).await.unwrap();
        assert_eq!(client.next().await.unwrap().unwrap(), value());
        drop(client);
        server.await.unwrap();
    });
}
