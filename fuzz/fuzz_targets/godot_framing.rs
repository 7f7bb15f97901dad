//! serde-godot's framing on arbitrary bytes, in both versions, in every framing: `decode_frame`
//! over a buffer of frames (what a server loop does), the same buffer arriving one byte short,
//! `read_frame` over the same bytes as a stream, and `from_reader`. They must return `Ok` or
//! `Err` — never panic or allocate beyond what the input backs — and agree with each other:
//! a frame that `decode_frame` finds complete is what `read_frame` reads, and one byte less is
//! `Ok(None)` (still incomplete), never an error or another value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use serde_godot::framing::{self, Framing};
use serde_godot::{Options, Variant, Version};

const FRAMINGS: [Framing; 4] =
    [Framing::StreamPeer, Framing::StreamPeerBigEndian, Framing::PacketPeerStream, Framing::Datagram];

fuzz_target!(|data: &[u8]| {
    for version in [Version::Godot4, Version::Godot3] {
        for full_objects in [false, true] {
            // A small max_size so that the size checks are reached too.
            let opts = Options::new().version(version).full_objects(full_objects).max_size(4096);
            for framing in FRAMINGS {
                let mut buf = data;
                let mut stream = data;
                for _ in 0..64 {
                    let decoded = framing::decode_frame::<Variant>(buf, &opts, framing);
                    let read = framing::read_frame::<_, Variant>(&mut stream, &opts, framing);
                    match (&decoded, &read) {
                        (Ok(Some((a, _))), Ok(b)) => {
                            assert_eq!(format!("{a:?}"), format!("{b:?}"), "decode_frame and read_frame disagree")
                        }
                        (Ok(Some(_)), Err(e)) => panic!("decode_frame decoded a frame that read_frame refused: {e}"),
                        (Ok(None) | Err(_), Ok(_)) => panic!("read_frame decoded a frame that decode_frame did not"),
                        _ => {}
                    }
                    let Ok(Some((_, used))) = decoded else { break };
                    assert!(used > 0 && used <= buf.len(), "frame length {used} of {}", buf.len());
                    if framing != Framing::Datagram {
                        // The same frame one byte short is incomplete, not an error.
                        let short = framing::decode_frame::<Variant>(&buf[..used - 1], &opts, framing);
                        assert!(matches!(short, Ok(None)), "a truncated frame gave {short:?}");
                        // And the typed path over the same frame.
                        let _ = framing::decode_frame::<serde::de::IgnoredAny>(buf, &opts, framing);
                    }
                    buf = &buf[used..];
                    assert_eq!(buf.len(), stream.len(), "decode_frame and read_frame took different lengths");
                    if framing == Framing::Datagram {
                        break;
                    }
                }
            }
            let _ = opts.from_reader::<_, Variant>(data);
        }
    }
});
