//! Memory budgets for what decoding builds in memory — the typed model, owned
//! [`Document`]s and the JSON reader's tree — and the one raw → owned BSON conversion they share.
//!
//! A small BSON value can take far more memory once decoded: a 2-byte `null` array element is a
//! 112-byte [`Bson`], a 16-byte child slot a 1.3 KB [`Slot`](crate::model::Slot). So what the
//! decoders build is counted as it is built, in in-memory bytes (entry buckets and hash tables of
//! documents, vector capacities, string heap), against a budget derived from the input size
//! ([`Options::model_budget_ratio`](crate::Options::model_budget_ratio) × the payload or JSON
//! text, plus [`BASE`]); running out is [`ErrorKind::LimitExceeded`](crate::ErrorKind), before
//! the allocation that would exceed it.

use std::cell::Cell;
use std::mem::size_of;

use bson::raw::RawIter;
use bson::{Bson, Document, RawBsonRef, RawDocument};
use serde_core::de;

use crate::error::{Error, ErrorKind};

/// The part of every budget that does not depend on the input size (small files may build a
/// model larger than `ratio` × their few bytes): 2 MiB.
pub(crate) const BASE: usize = 2 << 20;

/// The in-memory size of one [`Bson`] (an array slot; a document bucket holds one too).
pub(crate) const BSON: usize = size_of::<Bson>();

/// The in-memory bytes of an `IndexMap` (what a [`Document`] is) of `len` entries whose buckets
/// (hash, key, value) take `bucket` bytes: `indexmap` keeps its entry vector at the capacity of
/// its `hashbrown` index table (3, 7, 14, 28, … for 4, 8, 16, 32, … buckets of one `usize` and
/// one control byte, plus a 16-byte control group).
pub(crate) fn map_bytes(len: usize, bucket: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let buckets = if len < 4 {
        4
    } else if len < 8 {
        8
    } else {
        len.saturating_mul(8).div_ceil(7).checked_next_power_of_two().unwrap_or(usize::MAX)
    };
    let capacity = if buckets < 8 { buckets - 1 } else { buckets / 8 * 7 };
    capacity.saturating_mul(bucket).saturating_add(buckets.saturating_mul(size_of::<usize>() + 1)).saturating_add(16)
}

/// The bucket of a [`Document`] entry: the hash, the key and the value.
pub(crate) const DOC_BUCKET: usize = size_of::<usize>() + size_of::<String>() + BSON;

/// What growing a document from `len` to `len + 1` entries costs, plus the key's heap.
pub(crate) fn doc_entry(len: usize, key: usize) -> usize {
    map_bytes(len + 1, DOC_BUCKET) - map_bytes(len, DOC_BUCKET) + key
}

/// A budget of in-memory bytes. Charges are checked before the memory is allocated; a vector
/// that grows is charged its new buffer before it moves and refunded the old one after.
#[derive(Debug)]
pub(crate) struct Budget {
    limit: usize,
    left: Cell<usize>,
    exceeded: Cell<bool>,
}

impl Budget {
    /// A budget of `ratio` × `input` + [`BASE`] bytes.
    pub(crate) fn for_input(input: usize, ratio: usize) -> Self {
        Budget::new(limit_for(input, ratio))
    }

    pub(crate) fn new(limit: usize) -> Self {
        Budget { limit, left: Cell::new(limit), exceeded: Cell::new(false) }
    }

    /// Takes `bytes` from the budget; `false` (and the budget is marked exceeded) if they do not fit.
    pub(crate) fn charge(&self, bytes: usize) -> bool {
        match self.left.get().checked_sub(bytes) {
            Some(left) => {
                self.left.set(left);
                true
            }
            None => {
                self.exceeded.set(true);
                false
            }
        }
    }

    /// Gives back `bytes` freed (never above the limit).
    pub(crate) fn refund(&self, bytes: usize) {
        self.left.set(self.left.get().saturating_add(bytes).min(self.limit));
    }

    pub(crate) fn exceeded(&self) -> bool {
        self.exceeded.get()
    }

    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes charged and not refunded.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn used(&self) -> usize {
        self.limit - self.left.get()
    }
}

/// `ratio` × `input` + [`BASE`], saturating.
pub(crate) fn limit_for(input: usize, ratio: usize) -> usize {
    input.saturating_mul(ratio).saturating_add(BASE)
}

/// The error for a budget of `limit` bytes that ran out while building `what`.
pub(crate) fn limit_error(what: &str, limit: usize) -> Error {
    Error::new(
        ErrorKind::LimitExceeded,
        format!(
            "{what} needs more memory than its budget of {limit} bytes (Options::model_budget_ratio × the input \
             size + 2 MiB)"
        ),
    )
}

// The typed model's budget. The model's `Deserialize` impls are generic over the deserializer,
// so the budget of the decode in progress lives in a thread-local, set by this crate's
// `Deserializer` for the outermost call and cleared when it returns. Outside it (the model read
// through another deserializer) nothing is counted.
thread_local! {
    static MODEL: Cell<Option<ModelState>> = const { Cell::new(None) };
}

#[derive(Debug, Clone, Copy)]
struct ModelState {
    limit: usize,
    left: usize,
    exceeded: bool,
}

/// The typed model's budget for one outermost decode (a guard: dropping it ends the budget).
pub(crate) struct ModelScope {
    owner: bool,
}

impl ModelScope {
    /// Starts a budget of `limit` bytes unless one is running already (nested decodes share the
    /// outermost one).
    pub(crate) fn enter(limit: usize) -> Self {
        MODEL.with(|model| {
            if model.get().is_some() {
                ModelScope { owner: false }
            } else {
                model.set(Some(ModelState { limit, left: limit, exceeded: false }));
                ModelScope { owner: true }
            }
        })
    }

    /// Ends the budget; an error that happened because it ran out becomes
    /// [`ErrorKind::LimitExceeded`].
    pub(crate) fn finish<T>(self, result: crate::Result<T>) -> crate::Result<T> {
        let state = MODEL.with(Cell::get);
        drop(self);
        match (result, state) {
            (Err(_), Some(state)) if state.exceeded => Err(limit_error("the typed model", state.limit)),
            (result, _) => result,
        }
    }
}

impl Drop for ModelScope {
    fn drop(&mut self) {
        if self.owner {
            MODEL.with(|model| model.set(None));
        }
    }
}

/// Charges `bytes` to the running model budget (if any).
pub(crate) fn model_charge<E: de::Error>(bytes: usize) -> Result<(), E> {
    MODEL.with(|model| match model.get() {
        None => Ok(()),
        Some(mut state) => match state.left.checked_sub(bytes) {
            Some(left) => {
                state.left = left;
                model.set(Some(state));
                Ok(())
            }
            None => {
                state.exceeded = true;
                model.set(Some(state));
                Err(E::custom(limit_error("the typed model", state.limit).message()))
            }
        },
    })
}

/// Gives `bytes` back to the running model budget (if any).
pub(crate) fn model_refund(bytes: usize) {
    MODEL.with(|model| {
        if let Some(mut state) = model.get() {
            state.left = state.left.saturating_add(bytes).min(state.limit);
            model.set(Some(state));
        }
    });
}

/// Why a raw → owned conversion stopped.
#[derive(Debug)]
pub(crate) enum ConvertError {
    /// The budget ran out.
    Budget,
    /// The raw bytes are malformed (not possible for a validated payload).
    Raw(bson::error::Error),
}

impl From<bson::error::Error> for ConvertError {
    fn from(e: bson::error::Error) -> Self {
        ConvertError::Raw(e)
    }
}

/// What is being built: a document, an array, or a code-with-scope's scope.
enum Building {
    Document(Document),
    Array(Vec<Bson>),
    Scope(String, Document),
}

struct Frame<'a> {
    iter: RawIter<'a>,
    building: Building,
    /// This value's key in the enclosing document (`None` in an array or at the root).
    key: Option<String>,
}

impl Frame<'_> {
    fn into_value(self) -> (Option<String>, Bson) {
        let value = match self.building {
            Building::Document(doc) => Bson::Document(doc),
            Building::Array(array) => Bson::Array(array),
            Building::Scope(code, scope) => {
                Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope { code, scope })
            }
        };
        (self.key, value)
    }
}

/// Converts a raw value into an owned [`Bson`], exactly (no Extended JSON reading of `$` keys;
/// every type and key order kept; a duplicate key keeps its first position and last value, as
/// [`Document::insert`] does), charging every allocation to `charge` first (`false` stops with
/// [`ConvertError::Budget`]).
///
/// Iterative (nesting costs heap, not stack) and linear: each raw byte is read once. (The `bson`
/// crate's own `TryFrom<RawBsonRef>` copies every nested document's bytes again at each level.)
pub(crate) fn bson_from_raw(
    value: RawBsonRef<'_>,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Bson, ConvertError> {
    let mut stack = match open(value, None, charge)? {
        Opened::Leaf(_, leaf) => return Ok(leaf),
        Opened::Frame(frame) => vec![frame],
    };
    loop {
        let top = stack.last_mut().expect("the loop returns when the stack empties");
        let Some(element) = top.iter.next() else {
            let (key, value) = stack.pop().expect("not empty").into_value();
            match stack.last_mut() {
                None => return Ok(value),
                Some(parent) => add(parent, key, value),
            }
            continue;
        };
        let element = element?;
        let key = match &top.building {
            Building::Array(_) => None,
            Building::Document(doc) | Building::Scope(_, doc) => {
                let key = element.key().as_str();
                if !charge(doc_entry(doc.len(), key.len())) {
                    return Err(ConvertError::Budget);
                }
                Some(key.to_owned())
            }
        };
        match open(element.value()?, key, charge)? {
            Opened::Frame(frame) => stack.push(frame),
            Opened::Leaf(key, leaf) => add(top, key, leaf),
        }
    }
}

/// [`bson_from_raw`] for a document.
pub(crate) fn document_from_raw(
    document: &RawDocument,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Document, ConvertError> {
    match bson_from_raw(RawBsonRef::Document(document), charge)? {
        Bson::Document(doc) => Ok(doc),
        _ => unreachable!("a document converts to a document"),
    }
}

fn add(parent: &mut Frame<'_>, key: Option<String>, value: Bson) {
    match &mut parent.building {
        Building::Array(array) => array.push(value),
        Building::Document(doc) | Building::Scope(_, doc) => {
            doc.insert(key.expect("document entries have keys"), value);
        }
    }
}

enum Opened<'a> {
    /// A leaf value, with the key it was opened with.
    Leaf(Option<String>, Bson),
    Frame(Frame<'a>),
}

fn open<'a>(
    value: RawBsonRef<'a>,
    key: Option<String>,
    charge: &mut dyn FnMut(usize) -> bool,
) -> Result<Opened<'a>, ConvertError> {
    let mut pay = |bytes: usize| if charge(bytes) { Ok(()) } else { Err(ConvertError::Budget) };
    Ok(match value {
        RawBsonRef::Document(doc) => {
            Opened::Frame(Frame { iter: doc.iter_elements(), building: Building::Document(Document::new()), key })
        }
        RawBsonRef::Array(array) => {
            let doc = RawDocument::from_bytes(array.as_bytes())?;
            let mut count = 0usize;
            for element in doc.iter_elements() {
                element?;
                count += 1;
            }
            pay(count.saturating_mul(BSON))?;
            Opened::Frame(Frame {
                iter: doc.iter_elements(),
                building: Building::Array(Vec::with_capacity(count)),
                key,
            })
        }
        RawBsonRef::JavaScriptCodeWithScope(code) => {
            pay(code.code.len())?;
            Opened::Frame(Frame {
                iter: code.scope.iter_elements(),
                building: Building::Scope(code.code.to_owned(), Document::new()),
                key,
            })
        }
        leaf => {
            pay(leaf_heap(leaf))?;
            Opened::Leaf(key, Bson::try_from(leaf)?)
        }
    })
}

/// The heap bytes of an owned leaf value.
fn leaf_heap(value: RawBsonRef<'_>) -> usize {
    match value {
        RawBsonRef::String(s) | RawBsonRef::JavaScriptCode(s) | RawBsonRef::Symbol(s) => s.len(),
        RawBsonRef::Binary(b) => b.bytes.len(),
        RawBsonRef::RegularExpression(r) => r.pattern.as_str().len() + r.options.as_str().len(),
        RawBsonRef::DbPointer(_) => 64,
        _ => 0,
    }
}

/// A [`Document`] built from a validated raw document within `budget`.
pub(crate) fn document_within(document: &RawDocument, budget: &Budget, what: &str) -> crate::Result<Document> {
    document_from_raw(document, &mut |bytes| budget.charge(bytes)).map_err(|e| match e {
        ConvertError::Budget => limit_error(what, budget.limit()),
        ConvertError::Raw(e) => Error::from(e),
    })
}

/// A [`Bson`] built from a raw value within the running model budget, for the model's
/// `Deserialize` impls.
pub(crate) fn model_bson<E: de::Error>(value: RawBsonRef<'_>) -> Result<Bson, E> {
    let mut error = None;
    let result = bson_from_raw(value, &mut |bytes| match model_charge::<E>(bytes) {
        Ok(()) => true,
        Err(e) => {
            error = Some(e);
            false
        }
    });
    match result {
        Ok(value) => Ok(value),
        Err(ConvertError::Budget) => Err(error.unwrap_or_else(|| E::custom("the typed model's memory budget ran out"))),
        Err(ConvertError::Raw(e)) => Err(E::custom(e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_bytes_follows_indexmap() {
        assert_eq!(map_bytes(0, 144), 0);
        assert_eq!(map_bytes(1, 144), map_bytes(3, 144));
        assert!(map_bytes(4, 144) > map_bytes(3, 144));
        assert_eq!(map_bytes(7, 144), map_bytes(5, 144));
        assert_eq!(map_bytes(14, 144), map_bytes(8, 144));
        assert!(map_bytes(15, 144) > map_bytes(14, 144));
        let charged: usize = (0..1000).map(|len| doc_entry(len, 0)).sum();
        assert_eq!(charged, map_bytes(1000, DOC_BUCKET));
    }

    #[test]
    fn conversion_is_exact_and_charged() {
        let doc = bson::doc! {
            "$numberLong": "5",
            "a": [1, "x", { "$oid": 3 }, [], bson::Bson::Null],
            "code": bson::Bson::JavaScriptCodeWithScope(bson::JavaScriptCodeWithScope {
                code: "f()".into(), scope: bson::doc! { "$date": 1 },
            }),
        };
        let bytes = bson::serialize_to_vec(&doc).unwrap();
        let raw = RawDocument::from_bytes(&bytes).unwrap();
        let budget = Budget::new(usize::MAX);
        let back = document_within(raw, &budget, "test").unwrap();
        assert_eq!(back, doc);
        assert!(budget.used() > 3 * DOC_BUCKET);
        let small = Budget::new(budget.used() - 1);
        let err = document_within(raw, &small, "the test document").unwrap_err();
        assert_eq!(err.kind(), ErrorKind::LimitExceeded);
        assert!(err.message().contains("the test document"), "{err}");
    }
}
