//! What a decode records for [`dump`](crate::dump): its reads and its marks (what comes next, where
//! a property or object starts), through the `Traced` input. Other inputs record nothing, at no
//! cost. The decoder owns these hooks; the dump only reads what they recorded.

use std::cell::RefCell;

use crate::codec::Scalar;

/// One read of the object stream, recorded for a dump.
#[doc(hidden)]
#[derive(Debug)]
pub enum Read {
    /// A fixed-width unsigned read (tags, sizes, hashes, enum values).
    Bits(u32),
    /// A value.
    Scalar(Scalar),
    /// A length prefix.
    Len(u32),
    /// Aligned bytes: their start (a byte offset) and count.
    Bytes(usize, usize),
}

/// What the decoder says about what it reads next, recorded for a dump.
#[doc(hidden)]
#[derive(Debug)]
pub enum Mark {
    /// The meaning of the next read.
    Next(&'static str),
    /// The class a type hash named (or `null`).
    Class(String),
    /// A property starts (deep mode: its name comes with [`Mark::Named`] after its hash).
    Property(String),
    /// The property whose hash was just read.
    Named(String),
    /// An object body or a list begins.
    Enter,
    /// It ends.
    Leave,
}

/// One recorded event.
#[derive(Debug)]
pub(crate) enum Event {
    Read { start: u64, end: u64, read: Read },
    Mark(Mark),
}

/// The reads and marks of one decode, for a dump (at most a bound proportional to the input;
/// beyond it nothing more is kept and the dump says it was cut).
#[doc(hidden)]
#[derive(Debug)]
pub struct Trace {
    events: RefCell<Vec<Event>>,
    max: usize,
}

impl Trace {
    /// An empty trace keeping at most `max` events.
    pub(crate) fn new(max: usize) -> Self {
        Trace { events: RefCell::new(Vec::new()), max }
    }

    /// The recorded events.
    pub(crate) fn into_events(self) -> Vec<Event> {
        self.events.into_inner()
    }
}

impl Trace {
    fn push(&self, e: Event) {
        let mut events = self.events.borrow_mut();
        if events.len() < self.max {
            events.push(e);
        }
    }

    /// Records a read from bit `start` to bit `end`.
    pub fn read(&self, start: u64, end: u64, read: Read) {
        self.push(Event::Read { start, end, read });
    }

    /// Records a mark.
    pub fn mark(&self, mark: Mark) {
        self.push(Event::Mark(mark));
    }

    /// How many events were recorded.
    pub fn len(&self) -> usize {
        self.events.borrow().len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the events after the first `n` (a read the decoder took back).
    pub fn truncate(&self, n: usize) {
        self.events.borrow_mut().truncate(n);
    }
}

/// The object stream under a recording [`Deserializer`].
pub(crate) struct Traced<'d> {
    pub(crate) data: &'d [u8],
    pub(crate) trace: &'d Trace,
}

impl<'d> super::Input<'d> for Traced<'d> {
    #[inline(always)]
    fn data(&self) -> &[u8] {
        self.data
    }
    #[inline(always)]
    fn borrowed(&self) -> Option<&'d [u8]> {
        Some(self.data)
    }
    #[inline(always)]
    fn trace(&self) -> Option<&Trace> {
        Some(self.trace)
    }
}
