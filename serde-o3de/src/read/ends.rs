//! The record of the containers that skips have walked, kept over the passes of a load so that a
//! look-ahead never walks the same container twice.

use std::collections::HashMap;

/// The containers skips have walked: for the one starting at each offset, where it ends and how
/// deep it nests (1 for `[]`).
#[derive(Default)]
pub(crate) enum Ends {
    /// Not recorded (no look-ahead skipped a container yet).
    #[default]
    Off,
    /// `[end, height]` by start offset (`end` 0: not recorded): inputs under 4 GiB.
    Dense(Vec<[u32; 2]>),
    /// Larger inputs.
    Sparse(HashMap<usize, (usize, usize)>),
}

impl Ends {
    pub(super) fn enable(&mut self, len: usize) {
        if matches!(self, Ends::Off) {
            // Zeroed memory: the pages are mapped where containers are recorded.
            *self = if u32::try_from(len).is_ok_and(|l| l < u32::MAX) {
                Ends::Dense(vec![[0; 2]; len])
            } else {
                Ends::Sparse(HashMap::new())
            };
        }
    }

    #[inline]
    pub(super) fn get(&self, start: usize) -> Option<(usize, usize)> {
        match self {
            Ends::Off => None,
            Ends::Dense(v) => match v.get(start) {
                Some(&[end, height]) if end != 0 => Some((end as usize, height as usize)),
                _ => None,
            },
            Ends::Sparse(m) => m.get(&start).copied(),
        }
    }

    #[inline]
    pub(super) fn put(&mut self, start: usize, end: usize, height: usize) {
        match self {
            Ends::Off => {}
            Ends::Dense(v) => {
                if let (Some(slot), Ok(end), Ok(height)) = (v.get_mut(start), u32::try_from(end), u32::try_from(height))
                {
                    *slot = [end, height];
                }
            }
            Ends::Sparse(m) => {
                m.insert(start, (end, height));
            }
        }
    }
}
