//! Struct members: matching member names to fields (exactly, then ASCII case aside, as O3DE does),
//! and [`StructAccess`], which hands the members of an object to a struct visitor, skipping unknown
//! members, `$type` and the duplicates a later occurrence overrides.

use std::collections::HashMap;
use std::rc::Rc;

use serde_core::de::value::BorrowedStrDeserializer;
use serde_core::de::{self, DeserializeSeed};

use super::core::Core;
use super::state::{Action, Seg, Slot};
use crate::coerce::{self};
use crate::error::{Error, Result};
use crate::read::Read;
use crate::report::{Outcome, ResultCode, Task};

/// Matches `key` against `names`: `hint` first, then exactly, then ASCII case-insensitively (O3DE
/// compares CRC32s of lower-cased names). The first matching name wins. Long lists (many fields or
/// variants) are looked up through a hash index, so a key costs the same however many names there
/// are.
#[inline]
pub(super) fn match_name(names: &'static [&'static str], key: &str, hint: usize) -> Option<usize> {
    if names.get(hint).is_some_and(|n| *n == key) {
        return Some(hint);
    }
    if names.len() > NameIndex::LINEAR {
        return NameIndex::find(names, key);
    }
    names.iter().position(|n| *n == key).or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(key)))
}

/// A hash index of a long `'static` list of field or variant names, built once per list and thread.
///
/// The table holds only the (static) names, keyed by a hash of their lower-cased bytes, so input
/// keys cannot crowd a bucket: a key is compared with the few names sharing its hash at most.
pub(super) struct NameIndex {
    /// `(hash of the lower-cased name, index)`, sorted.
    pub(super) slots: Vec<(u64, usize)>,
}

impl NameIndex {
    /// Lists up to this long are searched directly.
    const LINEAR: usize = 16;

    pub(super) fn folded_hash(name: &str) -> u64 {
        // FNV-1a over the ASCII-lower-cased bytes.
        name.bytes()
            .fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b.to_ascii_lowercase())).wrapping_mul(0x100_0000_01b3))
    }

    pub(super) fn build(names: &[&str]) -> NameIndex {
        let mut slots: Vec<(u64, usize)> = names.iter().enumerate().map(|(i, n)| (Self::folded_hash(n), i)).collect();
        slots.sort_unstable();
        NameIndex { slots }
    }

    pub(super) fn find(names: &'static [&'static str], key: &str) -> Option<usize> {
        use std::cell::RefCell;
        use std::rc::Rc;
        thread_local! {
            static INDEXES: RefCell<HashMap<(usize, usize), Rc<NameIndex>>> = RefCell::new(HashMap::new());
        }
        let id = (names.as_ptr() as usize, names.len());
        let index = INDEXES.with(|cell| {
            let mut map = cell.borrow_mut();
            map.entry(id).or_insert_with(|| Rc::new(NameIndex::build(names))).clone()
        });
        let hash = Self::folded_hash(key);
        let start = index.slots.partition_point(|&(h, _)| h < hash);
        let mut folded = None;
        for &(h, i) in &index.slots[start..] {
            if h != hash {
                break;
            }
            if names[i] == key {
                return Some(i);
            }
            if folded.is_none() && names[i].eq_ignore_ascii_case(key) {
                folded = Some(i);
            }
        }
        folded
    }
}

/// Which fields a struct access has handed out (a set of indices for long field lists, which
/// costs nothing for an object with few members).
pub(super) enum Seen {
    Small(u64),
    Large(std::collections::HashSet<usize>),
}

impl Seen {
    pub(super) fn new(n: usize) -> Self {
        if n <= 64 { Seen::Small(0) } else { Seen::Large(std::collections::HashSet::new()) }
    }

    /// Marks field `i`; returns whether it was already marked.
    pub(super) fn set(&mut self, i: usize) -> bool {
        match self {
            Seen::Small(bits) => {
                let was = *bits >> i & 1 == 1;
                *bits |= 1 << i;
                was
            }
            Seen::Large(set) => !set.insert(i),
        }
    }
}

/// The occurrences that win among `(field, ident)` occurrences of the fields of a struct (the last
/// of each field given more than once), sorted by field; `None` when no field is repeated.
pub(super) fn winners(fields: usize, occurrences: &[(usize, usize)]) -> Option<Rc<[(usize, usize)]>> {
    let mut seen = Seen::new(fields);
    let mut last: Vec<(usize, usize)> = Vec::new();
    let mut repeated = Seen::new(fields);
    for &(field, ident) in occurrences.iter().rev() {
        if !seen.set(field) {
            last.push((field, ident));
        } else {
            repeated.set(field);
        }
    }
    last.retain(|&(field, _)| repeated.set(field));
    last.sort_unstable();
    (!last.is_empty()).then(|| last.into())
}

pub(super) struct StructAccess<'a, 'de, 'cb, R: Read<'de>> {
    pub(super) de: &'a mut Core<'de, 'cb, R>,
    pub(super) fields: &'static [&'static str],
    pub(super) start: R::Loc,
    pub(super) first: bool,
    pub(super) hint: usize,
    pub(super) seen: Seen,
    pub(super) loaded: usize,
    pub(super) ident: usize,
    pub(super) result: ResultCode,
    /// Fields skipped because an earlier pass found them failing (name, ident).
    pub(super) skipped: Vec<(&'static str, usize)>,
    /// Whether the object was already scanned for duplicate members.
    pub(super) duplicates_scanned: bool,
    /// Where an earlier pass found duplicate members: (field, ident of the occurrence that wins).
    pub(super) last: Option<Rc<[(usize, usize)]>>,
    /// The ident of the object.
    pub(super) object: usize,
    pub(super) done: bool,
}

impl<'de, R: Read<'de>> StructAccess<'_, 'de, '_, R> {
    /// A field given twice: O3DE loads every occurrence over the previous one, so the last wins.
    /// This pass keeps the first; the earlier occurrences are recorded so that the next pass skips
    /// them. The first duplicate scans the object once for the duplicates of every field, so a
    /// flood of duplicates costs one scan, not one per duplicate.
    pub(super) fn duplicate(&mut self) -> Result<()> {
        if std::mem::replace(&mut self.duplicates_scanned, true) {
            return Ok(());
        }
        let here = self.de.read.loc();
        let depth = self.de.st.depth;
        let fields = self.fields;
        let mut occurrences: Vec<(usize, usize)> = Vec::new();
        // Where the values of the fields' occurrences are (ident, location).
        let mut locs: Vec<(usize, R::Loc)> = Vec::new();
        self.de.read.seek(self.start);
        let r = (|| -> Result<()> {
            let read = &mut self.de.read;
            read.begin_object()?;
            let mut first = true;
            let mut hint = 0;
            while let Some(key) = read.next_key(first)? {
                first = false;
                let field = match_name(fields, key.as_str(), hint);
                read.peek()?;
                if let Some(field) = field {
                    hint = field + 1;
                    occurrences.push((field, read.ident()));
                    locs.push((read.ident(), read.loc()));
                }
                read.skip_ahead(depth)?;
            }
            Ok(())
        })();
        self.de.read.seek(here);
        r.map_err(|e| self.de.err(e))?;
        // Only the last occurrence of each field is loaded next time.
        if let Some(last) = winners(fields.len(), &occurrences) {
            // This pass skips the winners: what they hold is read first in the next pass, so the
            // duplicates nested in them are found now (one pass for every level).
            let mut wins: Vec<usize> = last.iter().map(|&(_, ident)| ident).collect();
            wins.sort_unstable();
            for &(ident, loc) in &locs {
                if wins.binary_search(&ident).is_ok() {
                    self.de.find_candidates(loc)?;
                }
            }
            self.de.st.last_found.insert(self.object, last);
        }
        Ok(())
    }

    /// Whether an earlier pass found that the member `ident` (of field `field`) is a duplicate
    /// that a later occurrence overrides.
    pub(super) fn overridden(&self, field: usize, ident: usize) -> bool {
        let Some(last) = &self.last else {
            return false;
        };
        match last.binary_search_by_key(&field, |&(f, _)| f) {
            Ok(at) => last[at].1 != ident,
            Err(_) => false,
        }
    }
}

impl<'de, R: Read<'de>> de::MapAccess<'de> for StructAccess<'_, 'de, '_, R> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>> {
        loop {
            let key = match self.de.read.next_key(self.first) {
                Ok(Some(key)) => key,
                Ok(None) => {
                    self.done = true;
                    return Ok(None);
                }
                Err(e) => return Err(self.de.err(e)),
            };
            self.first = false;
            let index = match_name(self.fields, key.as_str(), self.hint);
            let is_type = index.is_none() && key.as_str() == "$type";
            self.de.st.push_key(&key);
            self.de.peek()?;
            let ident = self.de.read.ident();
            if !self.de.st.plan.is_empty() {
                if let Some(Action::Skip(issue)) = self.de.st.plan.get(&ident) {
                    let issue = issue.clone();
                    let code = self.de.st.replay(issue.as_ref());
                    self.result.combine_with(code);
                    if let Some(i) = index {
                        self.skipped.push((self.fields[i], ident));
                    }
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            if let Some(i) = index {
                if self.overridden(i, ident) {
                    // A later occurrence of the field wins (O3DE loads each over the previous).
                    self.result.combine_with(ResultCode::new(Task::ReadField, Outcome::Skipped));
                    self.de.st.pop();
                    self.de.skip()?;
                    continue;
                }
            }
            match index {
                Some(i) if !self.seen.set(i) => {
                    self.hint = i + 1;
                    self.loaded += 1;
                    self.ident = ident;
                    return match seed.deserialize(BorrowedStrDeserializer::<Error>::new(self.fields[i])) {
                        Ok(k) => Ok(Some(k)),
                        Err(e) => {
                            self.de.st.pop();
                            Err(e)
                        }
                    };
                }
                Some(_) => {
                    self.de.st.pop();
                    self.duplicate()?;
                    self.de.skip()?;
                }
                None if is_type => {
                    self.de.st.pop();
                    self.de.skip()?;
                }
                None => {
                    // The name goes into the message only when someone reads it, clipped.
                    let st = &self.de.st;
                    let name = match st.path.last() {
                        Some(Seg::Key(k)) if st.report || st.callback.is_some() => coerce::clip(k).into_owned(),
                        Some(Seg::Owned(k)) if st.report || st.callback.is_some() => coerce::clip(k).into_owned(),
                        _ => String::new(),
                    };
                    let r = self.de.st.event(ident, ResultCode::new(Task::ReadField, Outcome::Skipped), &|| {
                        format!("Skipped unknown field \"{name}\"")
                    });
                    self.de.st.pop();
                    self.result.combine_with(r?.0);
                    self.de.skip()?;
                }
            }
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value> {
        let r = self.de.nested(Slot::Member, seed);
        let r = match r {
            Ok(v) => {
                self.result.combine_with(self.de.st.acc);
                Ok(v)
            }
            Err(e) => Err(self.de.value_error(e, self.ident, Slot::Member)),
        };
        self.de.st.pop();
        r
    }
}
