//! Unions without a `UnionType` placeholder: which table fields of a root type are unions, learned by
//! tracing the type's `Deserialize` implementation once and cached per type for both directions.
//!
//! A union takes two slots (its type, then its value). serde tells a format nothing about a field that is
//! absent (`None`), so positional slot numbering alone cannot know that an absent field was a union and
//! that every later field moved by one. The schema tracer ([`crate::schema`]) knows it from the type: it
//! records, per table struct name, the field indexes that are unions without a placeholder ([`Plan`]).
//! Decoding (`from_slice::<T>` has `T: Deserialize`) traces `T` on its first use (`schema::plan_of`,
//! above this module, which only holds the plans and their registry) and keeps the plan in a
//! process-wide registry keyed by `T`'s type name; encoding (`T: Serialize` only) looks the plan up there,
//! so a type with such unions must have been decoded or [`learn`](crate::learn)ed before it is encoded (an
//! encode that meets such a union without the plan fails instead of guessing slots).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{PoisonError, RwLock};

/// Per table struct name (serde's name): bit `i` set when field `i` (declaration index, as serde numbers
/// the fields) is a union without a `UnionType` placeholder.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Plan {
    tables: HashMap<String, u64>,
}

impl Plan {
    pub(crate) fn insert(&mut self, table: &str, bits: u64) {
        if bits != 0 {
            *self.tables.entry(table.to_owned()).or_default() |= bits;
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    /// The union fields of the table struct `name` (0 when it has none).
    #[inline]
    pub(crate) fn unions(&self, name: &str) -> u64 {
        self.tables.get(name).copied().unwrap_or(0)
    }
}

/// The implicit slots of field `index` of a table whose placeholder-free unions are `unions`: the field's
/// (value) slot and, for such a union, its type slot (the one before). Every union before it moved it by
/// one.
#[inline]
pub(crate) fn implicit_slot(unions: u64, index: usize) -> (usize, Option<usize>) {
    let below = if index >= 64 { unions } else { unions & ((1u64 << index) - 1) };
    let base = index + below.count_ones() as usize;
    if index < 64 && unions & (1 << index) != 0 { (base + 1, Some(base)) } else { (base, None) }
}

/// Whether field `index` is a placeholder-free union.
#[inline]
pub(crate) fn is_union(unions: u64, index: usize) -> bool {
    index < 64 && unions & (1 << index) != 0
}

/// The registry: type name → plan (`None` for a type without placeholder-free unions or one that could not
/// be traced). Entries are never removed; a type is traced at most a few times (racing threads, or
/// [`learn`](crate::learn) called again). Plans live for the process (`&'static`, so a decode looks one up with no
/// reference count): each distinct plan is leaked once and shared by every later registration equal to it,
/// so the memory kept is bounded by the distinct plans of the program's types, not by how often they are
/// learned.
static REGISTRY: RwLock<Option<Registry>> = RwLock::new(None);

struct Registry {
    types: HashMap<&'static str, Option<&'static Plan>>,
    /// Every plan ever registered, once each.
    plans: Vec<&'static Plan>,
}

/// Bumped on every registration, so thread-local caches of misses are refreshed.
static GENERATION: AtomicUsize = AtomicUsize::new(1);

/// One cached lookup per thread: (type name address, length, generation, the registry's answer).
type LastLookup = (usize, usize, usize, Option<Option<&'static Plan>>);

thread_local! {
    static LAST: std::cell::Cell<LastLookup> = const { std::cell::Cell::new((0, 0, 0, None)) };
}

pub(crate) fn register(type_name: &'static str, plan: Option<Plan>) -> Option<&'static Plan> {
    let mut guard = REGISTRY.write().unwrap_or_else(PoisonError::into_inner);
    let registry = guard.get_or_insert_with(|| Registry { types: HashMap::new(), plans: Vec::new() });
    let plan = plan.map(|plan| match registry.plans.iter().find(|p| ***p == plan) {
        Some(&same) => same,
        None => {
            let leaked: &'static Plan = Box::leak(Box::new(plan));
            registry.plans.push(leaked);
            leaked
        }
    });
    registry.types.insert(type_name, plan);
    GENERATION.fetch_add(1, Ordering::Release);
    plan
}

/// What the registry knows about `type_name`: `Some(plan)` once learned (`plan` `None` when the type needs
/// none), `None` if it was never learned. One thread-local comparison after the first call on a thread.
#[inline]
pub(crate) fn lookup(name: &'static str) -> Option<Option<&'static Plan>> {
    let generation = GENERATION.load(Ordering::Acquire);
    let key = (name.as_ptr() as usize, name.len(), generation);
    LAST.with(|last| {
        let cached = last.get();
        if (cached.0, cached.1, cached.2) == key {
            return cached.3;
        }
        let found = {
            let guard = REGISTRY.read().unwrap_or_else(PoisonError::into_inner);
            guard.as_ref().and_then(|r| r.types.get(name).copied())
        };
        last.set((key.0, key.1, key.2, found));
        found
    })
}

/// The plan of `T` if it is known (encoding, where `T` cannot be traced).
#[inline]
pub(crate) fn known<T: ?Sized>() -> Option<&'static Plan> {
    lookup(std::any::type_name::<T>()).flatten()
}

/// Root types whose decode needed a second pass without in-order table reads (see `de/in_order.rs`): one
/// entry per such type, so the memory is bounded by the program's types.
static MAP_ONLY: RwLock<Vec<&'static str>> = RwLock::new(Vec::new());

/// Whether [`MAP_ONLY`] has any entry (so the common decode never takes its lock).
static ANY_MAP_ONLY: AtomicBool = AtomicBool::new(false);

/// Whether decoding `T` may read tables in field order.
#[inline]
pub(crate) fn in_order<T: ?Sized>() -> bool {
    if !ANY_MAP_ONLY.load(Ordering::Acquire) {
        return true;
    }
    let name = std::any::type_name::<T>();
    !MAP_ONLY.read().unwrap_or_else(PoisonError::into_inner).contains(&name)
}

/// Remembers that `T` decodes through the map path only.
pub(crate) fn map_only<T: ?Sized>() {
    let name = std::any::type_name::<T>();
    let mut guard = MAP_ONLY.write().unwrap_or_else(PoisonError::into_inner);
    if !guard.contains(&name) {
        guard.push(name);
    }
    ANY_MAP_ONLY.store(true, Ordering::Release);
}
