//! Look-aheads: reading ahead in the input and coming back, for a `$type` member and for the
//! objects inside a duplicate member that give a name twice.

use std::collections::HashMap;

use super::core::Core;
use crate::error::{Code, Error, Result};
use crate::read::{Peek, Read};

impl<'de, 'cb, R: Read<'de>> Core<'de, 'cb, R> {
    /// Walks the value at `loc` and records in `candidates` every object inside it (itself
    /// included) that gives a member name twice, ASCII case aside: the members that may be
    /// duplicates of one field of whatever struct the object is read as. The reader is left where
    /// it was.
    pub(super) fn find_candidates(&mut self, loc: R::Loc) -> Result<()> {
        enum Frame {
            /// An object: its ident, whether the next member is its first, where its names start.
            Obj(usize, bool, usize),
            /// An array: whether the next element is its first.
            Arr(bool),
        }
        let back = self.read.loc();
        self.read.seek(loc);
        let depth = self.st.depth;
        let hasher = std::collections::hash_map::RandomState::new();
        let candidates = &mut self.st.candidates;
        let read = &mut self.read;
        let r = (|| -> Result<()> {
            let mut frames: Vec<Frame> = Vec::new();
            // The members of the open objects: (hash of the lower-cased name, name span, ident).
            let mut members: Vec<(u64, std::ops::Range<usize>, usize)> = Vec::new();
            let mut names = String::new();
            let mut counts: HashMap<u64, usize> = HashMap::new();
            let mut lower: Vec<u8> = Vec::new();
            loop {
                // A value.
                match read.peek()? {
                    kind @ (Peek::Obj | Peek::Arr) => {
                        if frames.len() >= depth {
                            return Err(Error::new(Code::Depth(depth)));
                        }
                        if kind == Peek::Obj {
                            frames.push(Frame::Obj(read.ident(), true, members.len()));
                            read.begin_object()?;
                        } else {
                            frames.push(Frame::Arr(true));
                            read.begin_array()?;
                        }
                    }
                    _ => read.skip(depth)?,
                }
                // The next value, closing the containers that end.
                loop {
                    match frames.last_mut() {
                        None => return Ok(()),
                        Some(Frame::Arr(first)) => {
                            if read.next_element(*first)? {
                                *first = false;
                                break;
                            }
                            frames.pop();
                        }
                        Some(Frame::Obj(ident, first, from)) => {
                            if let Some(key) = read.next_key(*first)? {
                                *first = false;
                                let key = key.as_str();
                                lower.clear();
                                lower.extend(key.bytes().map(|b| b.to_ascii_lowercase()));
                                let hash = std::hash::BuildHasher::hash_one(&hasher, &lower);
                                let start = names.len();
                                names.push_str(key);
                                read.peek()?;
                                members.push((hash, start..names.len(), read.ident()));
                                break;
                            }
                            let (ident, from) = (*ident, *from);
                            frames.pop();
                            counts.clear();
                            for (hash, ..) in &members[from..] {
                                *counts.entry(*hash).or_default() += 1;
                            }
                            let repeated: Vec<(Box<str>, usize)> = members[from..]
                                .iter()
                                .filter(|(hash, ..)| counts.get(hash).is_some_and(|&c| c > 1))
                                .map(|(_, span, at)| (names[span.clone()].into(), *at))
                                .collect();
                            if !repeated.is_empty() {
                                candidates.insert(ident, repeated.into());
                            }
                            if let Some((_, span, _)) = members.get(from) {
                                names.truncate(span.start);
                            }
                            members.truncate(from);
                        }
                    }
                }
            }
        })();
        self.read.seek(back);
        r.map_err(|e| self.err(e))
    }

    /// Looks ahead in the next (non-empty) object for a string `$type` member; the reader is left
    /// where it was.
    pub(super) fn find_type(&mut self) -> Result<Option<String>> {
        let save = self.read.loc();
        let depth = self.st.depth;
        let r = (|| -> Result<Option<String>> {
            self.read.begin_object()?;
            let mut first = true;
            while let Some(key) = self.read.next_key(first)? {
                first = false;
                let is_type = key.as_str() == "$type";
                if is_type && self.read.peek()? == Peek::Str {
                    return Ok(Some(self.read.string()?.as_str().to_owned()));
                }
                self.read.skip_ahead(depth)?;
                if is_type {
                    return Ok(None);
                }
            }
            Ok(None)
        })();
        let r = r.map_err(|e| self.err(e));
        self.read.seek(save);
        r
    }
}
