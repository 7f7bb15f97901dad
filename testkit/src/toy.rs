//! A toy length-prefixed format, used to prove that the checkers in this crate catch real bugs.
//!
//! Wire form of a value: a tag byte, then
//! * `0x01` Int: 4 bytes, little-endian `u32`;
//! * `0x02` Bytes: `u32` LE length, then that many bytes;
//! * `0x03` List: `u32` LE count, then that many values.
//!
//! A document is one value with no trailing bytes. [`decode`] is a sound decoder (bounds checks,
//! depth limit, preallocation capped by the remaining input, trailing-byte check). The three
//! `decode_*` variants each have one classic bug: [`decode_panicky`] slices without checking,
//! [`decode_greedy`] preallocates from the untrusted length, [`decode_unbounded`] has no depth limit.
//! The fuzz scaffold's sample target fuzzes [`decode`].

/// A decoded toy value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToyValue {
    /// Tag `0x01`.
    Int(u32),
    /// Tag `0x02`.
    Bytes(Vec<u8>),
    /// Tag `0x03`.
    List(Vec<ToyValue>),
}

/// Why a toy document was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToyError {
    /// The input ended early.
    Eof,
    /// An unknown tag byte.
    BadTag(u8),
    /// Nested deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Bytes after the document.
    Trailing,
}

/// Nesting limit of the sound decoder.
pub const MAX_DEPTH: usize = 128;

/// Encodes a value.
pub fn encode(value: &ToyValue) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(value, &mut out);
    out
}

fn encode_into(value: &ToyValue, out: &mut Vec<u8>) {
    match value {
        ToyValue::Int(v) => {
            out.push(1);
            out.extend_from_slice(&v.to_le_bytes());
        }
        ToyValue::Bytes(b) => {
            out.push(2);
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        ToyValue::List(items) => {
            out.push(3);
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for item in items {
                encode_into(item, out);
            }
        }
    }
}

/// The bytes of a list nested `depth` levels deep around an empty list: a depth bomb.
pub fn depth_bomb(depth: usize) -> Vec<u8> {
    crate::depth::prefixed(&[3, 1, 0, 0, 0], depth, &[3, 0, 0, 0, 0])
}

#[derive(Clone, Copy)]
enum Flavor {
    Sound,
    Panicky,
    Greedy,
    Unbounded,
}

struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
    flavor: Flavor,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ToyError> {
        if let Flavor::Panicky = self.flavor {
            // Bug: trusts the input to be long enough.
            let bytes = &self.input[self.pos..self.pos + n];
            self.pos += n;
            return Ok(bytes);
        }
        let end = self.pos.checked_add(n).filter(|&end| end <= self.input.len()).ok_or(ToyError::Eof)?;
        let bytes = &self.input[self.pos..end];
        self.pos = end;
        Ok(bytes)
    }

    fn u32(&mut self) -> Result<u32, ToyError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn remaining(&self) -> usize {
        self.input.len().saturating_sub(self.pos)
    }

    /// Capacity to reserve for `declared` items of at least `min_size` bytes each.
    fn capacity(&self, declared: usize, min_size: usize) -> usize {
        match self.flavor {
            // Bug: an attacker-chosen length goes straight to the allocator.
            Flavor::Greedy => declared,
            _ => declared.min(self.remaining() / min_size.max(1)),
        }
    }

    fn value(&mut self, depth: usize) -> Result<ToyValue, ToyError> {
        let tag = self.take(1)?[0];
        match tag {
            1 => Ok(ToyValue::Int(self.u32()?)),
            2 => {
                let len = self.u32()? as usize;
                let mut bytes = Vec::with_capacity(self.capacity(len, 1));
                bytes.extend_from_slice(self.take(len)?);
                Ok(ToyValue::Bytes(bytes))
            }
            3 => {
                if depth >= MAX_DEPTH && !matches!(self.flavor, Flavor::Unbounded) {
                    return Err(ToyError::TooDeep);
                }
                let count = self.u32()? as usize;
                let mut items = Vec::with_capacity(self.capacity(count, 5));
                for _ in 0..count {
                    items.push(self.value(depth + 1)?);
                }
                Ok(ToyValue::List(items))
            }
            other => Err(ToyError::BadTag(other)),
        }
    }
}

fn run(input: &[u8], flavor: Flavor) -> Result<ToyValue, ToyError> {
    let mut reader = Reader { input, pos: 0, flavor };
    let value = reader.value(0)?;
    if reader.remaining() != 0 {
        return Err(ToyError::Trailing);
    }
    Ok(value)
}

/// The sound decoder.
pub fn decode(input: &[u8]) -> Result<ToyValue, ToyError> {
    run(input, Flavor::Sound)
}

/// Broken on purpose: panics on truncated input.
pub fn decode_panicky(input: &[u8]) -> Result<ToyValue, ToyError> {
    run(input, Flavor::Panicky)
}

/// Broken on purpose: allocates whatever a length field claims.
pub fn decode_greedy(input: &[u8]) -> Result<ToyValue, ToyError> {
    run(input, Flavor::Greedy)
}

/// Broken on purpose: recurses without a depth limit.
pub fn decode_unbounded(input: &[u8]) -> Result<ToyValue, ToyError> {
    run(input, Flavor::Unbounded)
}

/// A few representative toy documents.
pub fn sample_fixtures() -> Vec<(&'static str, Vec<u8>)> {
    use ToyValue::*;
    vec![
        ("int", encode(&Int(0xDEAD_BEEF))),
        ("bytes", encode(&Bytes(b"hello, hostile world".to_vec()))),
        (
            "nested",
            encode(&List(vec![Int(1), Bytes(vec![0xFF; 3]), List(vec![List(vec![]), Int(7)]), Bytes(Vec::new())])),
        ),
    ]
}
