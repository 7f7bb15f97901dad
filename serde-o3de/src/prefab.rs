//! A typed model of O3DE prefab files (`.prefab`).
//!
//! ```text
//! { "ContainerEntity": Entity,
//!   "Entities":  { "<EntityAlias>": Entity, ... },
//!   "Instances": { "<InstanceAlias>": { "Source": "path.prefab", "Patches": [ JSON Patch ops ] }, ... } }
//! Entity    = { "Id": "<alias>", "Name": "...", "Components": { "<ComponentAlias>": Component, ... } }
//! Component = { "$type": "...", "Id": <u64>, ...fields }
//! ```
//!
//! Entity ids are alias strings (`"ContainerEntity"`, `"Entity_[6725966533831]"`); component ids
//! are `u64` and may exceed `i64::MAX`. Component fields the model does not type are kept as
//! [`RawJson`] in document order, and unknown members of every object are kept too, so a prefab
//! read and written back is the same JSON (and, written with
//! [`to_string_pretty`](crate::to_string_pretty), the same bytes as O3DE writes).
//!
//! ```
//! use serde_o3de::prefab::Prefab;
//!
//! let text = r#"{
//!     "ContainerEntity": {
//!         "Id": "ContainerEntity",
//!         "Name": "Level",
//!         "Components": {
//!             "Component_[1]": {
//!                 "$type": "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0} TransformComponent",
//!                 "Id": 17437522806552955660,
//!                 "Parent Entity": "",
//!                 "Transform Data": {
//!                     "Translate": [
//!                         1.0,
//!                         2.0,
//!                         3.0
//!                     ]
//!                 }
//!             }
//!         }
//!     }
//! }"#;
//! let prefab: Prefab = serde_o3de::from_str(text)?;
//! let component = &prefab.container_entity.components["Component_[1]"];
//! assert_eq!(component.id, Some(17437522806552955660));
//! assert_eq!(component.type_name(), "TransformComponent");
//! let transform = prefab.container_entity.transform()?.unwrap();
//! assert_eq!(transform.transform_data.translate.to_array(), [1.0, 2.0, 3.0]);
//! assert_eq!(serde_o3de::to_string_pretty(&prefab)?, text);
//! # Ok::<(), serde_o3de::Error>(())
//! ```

use std::fmt;

use indexmap::IndexMap;
use serde_core::de::{self, Deserializer, MapAccess, Visitor};
use serde_core::ser::{SerializeMap, Serializer};
use serde_core::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::markers::POLY;
use crate::types::math::Vector3;
use crate::types::uuid::Uuid;
use crate::value::RawJson;

/// A prefab: its container entity, entities and nested prefab instances.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Prefab {
    /// The entity that holds the prefab (`"ContainerEntity"`).
    pub container_entity: Entity,
    /// The entities by alias (`"Entities"`).
    pub entities: IndexMap<String, Entity>,
    /// The nested prefab instances by alias (`"Instances"`).
    pub instances: IndexMap<String, Instance>,
    /// Members this model does not know, in document order.
    pub extra: IndexMap<String, RawJson>,
}

/// An entity.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Entity {
    /// The entity's alias (`"Id"`), e.g. `"ContainerEntity"` or `"Entity_[6725966533831]"`.
    pub id: String,
    /// The entity's name (`"Name"`).
    pub name: String,
    /// The components by alias (`"Components"`), e.g. `"Component_[12039882709170782873]"`.
    pub components: IndexMap<String, Component>,
    /// Members this model does not know, in document order.
    pub extra: IndexMap<String, RawJson>,
}

/// A component: its `$type`, its `Id` and its other fields as written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Component {
    /// The `$type` string as written, e.g. `"EditorLockComponent"` or
    /// `"{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0} TransformComponent"`.
    pub type_string: String,
    /// The component id (`"Id"`).
    pub id: Option<u64>,
    /// The other fields, in document order.
    pub fields: IndexMap<String, RawJson>,
}

/// A nested prefab instance.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Instance {
    /// The prefab file it instantiates (`"Source"`), relative to the project.
    pub source: String,
    /// The overrides applied to it (`"Patches"`).
    pub patches: Vec<PatchOp>,
    /// Members this model does not know, in document order.
    pub extra: IndexMap<String, RawJson>,
}

/// One RFC 6902 JSON Patch operation.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PatchOp {
    /// `add`, `remove`, `replace`, `move`, `copy` or `test`.
    pub op: String,
    /// The JSON Pointer the operation targets.
    pub path: String,
    /// The value of `add`, `replace` and `test`.
    pub value: Option<RawJson>,
    /// The source pointer of `move` and `copy`.
    pub from: Option<String>,
    /// Members this model does not know, in document order.
    pub extra: IndexMap<String, RawJson>,
}

impl Component {
    /// The type's uuid, when `$type` holds one.
    pub fn type_id(&self) -> Option<Uuid> {
        Uuid::find(&self.type_string)
    }

    /// The type's name: `$type` without a leading `{UUID}`, trimmed.
    pub fn type_name(&self) -> &str {
        match self.type_string.rfind('}') {
            Some(end) if self.type_id().is_some() => self.type_string[end + 1..].trim(),
            _ => self.type_string.trim(),
        }
    }

    /// A field, loaded as `T` with O3DE's rules; `None` when absent.
    pub fn field<T: de::DeserializeOwned>(&self, name: &str) -> Result<Option<T>> {
        self.fields.get(name).map(|raw| crate::from_str(raw.get())).transpose()
    }

    /// The whole component loaded as `T` with O3DE's rules (`$type` and `Id` included, which
    /// plain structs skip or may take).
    pub fn decode<T: de::DeserializeOwned>(&self) -> Result<T> {
        let mut text = Vec::new();
        let mut map = Vec::new();
        if !self.type_string.is_empty() {
            map.push(("$type".to_owned(), RawJson::from_value(&Value::String(self.type_string.clone()))));
        }
        if let Some(id) = self.id {
            map.push(("Id".to_owned(), RawJson::from_text(&id.to_string())?));
        }
        map.extend(self.fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        text.push(b'{');
        for (i, (k, v)) in map.iter().enumerate() {
            if i > 0 {
                text.push(b',');
            }
            crate::fmt::write_str(&mut text, k);
            text.push(b':');
            text.extend_from_slice(v.get().as_bytes());
        }
        text.push(b'}');
        crate::from_slice(&text).map_err(|e| e.with_path(String::new()))
    }

    /// Whether this is the `TransformComponent`.
    pub fn is_transform(&self) -> bool {
        self.type_name() == "TransformComponent"
    }
}

/// The editor transform of an entity (`"Transform Data"` of its TransformComponent).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EditorTransform {
    /// `"Translate"`.
    pub translate: Vector3,
    /// `"Rotate"`: Euler angles in degrees.
    pub rotate: Vector3,
    /// `"Scale"`: the legacy non-uniform scale.
    pub scale: Vector3,
    /// `"Locked"`.
    pub locked: bool,
    /// `"UniformScale"`.
    pub uniform_scale: f32,
}

impl Default for EditorTransform {
    fn default() -> Self {
        EditorTransform {
            translate: Vector3::default(),
            rotate: Vector3::default(),
            scale: Vector3::new(1.0, 1.0, 1.0),
            locked: false,
            uniform_scale: 1.0,
        }
    }
}

/// The fields of the TransformComponent (`{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0}`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TransformComponent {
    /// `"Parent Entity"`: the parent's alias, `""` for none.
    pub parent_entity: String,
    /// `"Transform Data"`.
    pub transform_data: EditorTransform,
    /// `"Parent Activation Transform Mode"` (0: maintain original relative transform).
    pub parent_activation_transform_mode: u32,
    /// `"IsStatic"`.
    pub is_static: bool,
    /// `"InterpolatePosition"` (an interpolation mode; 0 is none).
    pub interpolate_position: u32,
    /// `"InterpolateRotation"`.
    pub interpolate_rotation: u32,
}

impl Entity {
    /// The component whose `$type` names `type_name` (case-insensitive), if any.
    pub fn component(&self, type_name: &str) -> Option<&Component> {
        self.components.values().find(|c| c.type_name().eq_ignore_ascii_case(type_name))
    }

    /// The entity's TransformComponent, typed.
    pub fn transform(&self) -> Result<Option<TransformComponent>> {
        self.components.values().find(|c| c.is_transform()).map(Component::decode).transpose()
    }
}

impl Prefab {
    /// Every entity: the container entity first, then the others in document order.
    pub fn all_entities(&self) -> impl Iterator<Item = (&str, &Entity)> {
        std::iter::once(("ContainerEntity", &self.container_entity))
            .chain(self.entities.iter().map(|(k, v)| (k.as_str(), v)))
    }
}

impl Instance {
    /// Applies the patches to `target` (a prefab document as a `serde_json::Value`), in order, per
    /// RFC 6902, within the default [`PatchLimits`] (derived from the sizes of `target` and the
    /// patches). Stops at the first operation that fails (a missing path, a failed `test`) or that
    /// would break a limit; `target` then holds the operations before it.
    pub fn apply_patches(&self, target: &mut Value) -> Result<()> {
        self.apply_patches_with(target, PatchLimits::new())
    }

    /// [`apply_patches`](Self::apply_patches) within the given limits.
    pub fn apply_patches_with(&self, target: &mut Value, limits: PatchLimits) -> Result<()> {
        let text: usize = self.patches.iter().map(PatchOp::text_len).fold(0, usize::saturating_add);
        let mut budget = Budget::new(target, text, limits);
        for (i, op) in self.patches.iter().enumerate() {
            op.apply_within(target, &mut budget).map_err(|e| e.into_error(i))?;
        }
        Ok(())
    }
}

/// Limits of [patch application](Instance::apply_patches_with): how large the patched document
/// may grow, how much work the operations may do, and how deep they may nest it.
///
/// JSON Patch can amplify: each `copy` of the root into itself doubles the document, and each
/// `add` at the front of a long array shifts all its elements. Sizes and work are counted in
/// estimated bytes (a JSON value is counted as [`PatchLimits::VALUE_BYTES`], an object member as
/// twice that plus its name, a string as its length). Breaking a limit is an error of
/// [`Category::Limit`](crate::Category::Limit) naming it.
///
/// By default, with `d` the estimated size of the target document and `p` the text length of the
/// patches: the size limit is `2·d + 32·p` + 4 MiB, the work limit 16 times that, and the depth
/// limit [`DEFAULT_MAX_DEPTH`](crate::DEFAULT_MAX_DEPTH).
///
/// ```
/// use serde_o3de::prefab::{Instance, PatchLimits};
/// use serde_json::json;
///
/// // Each copy doubles the document: 40 of them would need terabytes.
/// let op = r#"{"op": "copy", "from": "/a", "path": "/a/-"}"#;
/// let patches = format!(r#"{{"Source": "x.prefab", "Patches": [{}]}}"#, vec![op; 40].join(","));
/// let instance: Instance = serde_o3de::from_str(&patches)?;
/// let mut doc = json!({"a": [0]});
/// let err = instance.apply_patches(&mut doc).unwrap_err();
/// assert_eq!(err.category(), serde_o3de::Category::Limit);
///
/// // A tighter limit of its own.
/// let mut doc = json!({"a": [0]});
/// let err = instance.apply_patches_with(&mut doc, PatchLimits::new().max_size(10_000)).unwrap_err();
/// assert!(err.to_string().contains("max_size"), "{err}");
/// # Ok::<(), serde_o3de::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PatchLimits {
    max_size: Option<usize>,
    max_work: Option<usize>,
    max_depth: usize,
}

impl Default for PatchLimits {
    fn default() -> Self {
        PatchLimits::new()
    }
}

impl PatchLimits {
    /// The estimated bytes of one JSON value (an array element), in sizes and work.
    pub const VALUE_BYTES: usize = std::mem::size_of::<Value>();

    /// The defaults, derived from the inputs (see the type's docs).
    pub const fn new() -> Self {
        PatchLimits { max_size: None, max_work: None, max_depth: crate::DEFAULT_MAX_DEPTH }
    }

    /// The estimated size in bytes the patched document may reach.
    pub const fn max_size(mut self, bytes: usize) -> Self {
        self.max_size = Some(bytes);
        self
    }

    /// The work the operations may do in all, in estimated bytes read, copied or shifted.
    pub const fn max_work(mut self, bytes: usize) -> Self {
        self.max_work = Some(bytes);
        self
    }

    /// How deep an added, copied or moved value may end up (arrays and objects inside each
    /// other, as [`Options::max_depth`](crate::Options::max_depth) counts them).
    pub const fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }
}

/// Why an operation failed: the operation itself, or a limit.
enum PatchError {
    Op(String),
    Limit(String),
}

impl From<String> for PatchError {
    fn from(message: String) -> Self {
        PatchError::Op(message)
    }
}

impl PatchError {
    fn into_error(self, i: usize) -> Error {
        match self {
            PatchError::Op(e) => Error::data(crate::Outcome::Invalid, format!("patch {i}: {e}")),
            PatchError::Limit(e) => Error::limit(format!("patch {i}: {e}")),
        }
    }

    fn into_message(self) -> String {
        match self {
            PatchError::Op(e) | PatchError::Limit(e) => e,
        }
    }
}

type PatchResult<T> = std::result::Result<T, PatchError>;

/// What the operations may still do, and the document's estimated size.
struct Budget {
    size: usize,
    max_size: usize,
    work: usize,
    max_work: usize,
    max_depth: usize,
}

/// The estimated size and the nesting height of a value (a scalar is 0 deep, `[]` 1), measured
/// without recursion.
fn measure(value: &Value) -> (usize, usize) {
    const V: usize = PatchLimits::VALUE_BYTES;
    let mut size = V;
    let mut height = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::String(s) => size = size.saturating_add(s.len()),
            Value::Array(items) => {
                height = height.max(depth + 1);
                size = size.saturating_add(items.len().saturating_mul(V));
                stack.extend(items.iter().map(|item| (item, depth + 1)));
            }
            Value::Object(members) => {
                height = height.max(depth + 1);
                for (k, item) in members {
                    size = size.saturating_add(2 * V + k.len());
                    stack.push((item, depth + 1));
                }
            }
            _ => {}
        }
    }
    (size, height)
}

impl Budget {
    fn new(target: &Value, text: usize, limits: PatchLimits) -> Budget {
        let (size, _) = measure(target);
        let base = size.saturating_mul(2).saturating_add(text.saturating_mul(32)).saturating_add(4 << 20);
        let max_size = limits.max_size.unwrap_or(base);
        let max_work = limits.max_work.unwrap_or(base.saturating_mul(16));
        // Measuring the target was work too.
        Budget { size, max_size, work: size, max_work, max_depth: limits.max_depth }
    }

    fn spend(&mut self, work: usize) -> PatchResult<()> {
        self.work = self.work.saturating_add(work);
        if self.work > self.max_work {
            return Err(PatchError::Limit(format!(
                "the operations exceed the patch work limit ({} bytes; PatchLimits::max_work)",
                self.max_work
            )));
        }
        Ok(())
    }

    /// Measures a value about to be inserted `depth` levels deep: checks the depth and the size
    /// the document would have (`removed` bytes leave it at the same time).
    fn admit(&mut self, value: &Value, depth: usize, removed: usize) -> PatchResult<usize> {
        let (size, height) = measure(value);
        self.spend(size)?;
        self.check_depth(depth, height)?;
        let after = self.size.saturating_sub(removed).saturating_add(size);
        if after > self.max_size {
            return Err(PatchError::Limit(format!(
                "the patched document would exceed the patch size limit ({} bytes; PatchLimits::max_size)",
                self.max_size
            )));
        }
        self.size = after;
        Ok(size)
    }

    fn check_depth(&self, depth: usize, height: usize) -> PatchResult<()> {
        if depth.saturating_add(height) > self.max_depth {
            return Err(PatchError::Limit(format!(
                "the value would nest deeper than the patch depth limit ({}; PatchLimits::max_depth)",
                self.max_depth
            )));
        }
        Ok(())
    }

    /// A value left the document.
    fn released(&mut self, value: &Value) -> PatchResult<()> {
        let (size, _) = measure(value);
        self.spend(size)?;
        self.size = self.size.saturating_sub(size);
        Ok(())
    }

    /// `n` array elements shifted by an insert or a removal.
    fn shifted(&mut self, n: usize) -> PatchResult<()> {
        self.spend(n.saturating_mul(PatchLimits::VALUE_BYTES))
    }
}

/// Splits a JSON Pointer into unescaped tokens.
fn pointer_tokens(pointer: &str) -> std::result::Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("\"{}\" is not a JSON Pointer", crate::coerce::clip(pointer)));
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

fn resolve_mut<'v>(root: &'v mut Value, tokens: &[String]) -> std::result::Result<&'v mut Value, String> {
    let mut node = root;
    for t in tokens {
        node = match node {
            Value::Object(m) => m.get_mut(t).ok_or_else(|| format!("no member \"{}\"", crate::coerce::clip(t)))?,
            Value::Array(a) => {
                let i = array_index(t)?;
                a.get_mut(i).ok_or_else(|| format!("index {i} is out of bounds"))?
            }
            _ => return Err(format!("\"{}\" leads into a scalar", crate::coerce::clip(t))),
        };
    }
    Ok(node)
}

/// An array index token (RFC 6901: `0` or digits without a leading zero).
fn array_index(t: &str) -> std::result::Result<usize, String> {
    let canonical = !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()) && (t == "0" || !t.starts_with('0'));
    match t.parse::<usize>() {
        Ok(i) if canonical => Ok(i),
        _ => Err(format!("\"{}\" is not an array index", crate::coerce::clip(t))),
    }
}

fn remove_at(root: &mut Value, pointer: &str, budget: &mut Budget) -> PatchResult<Value> {
    budget.spend(pointer.len())?;
    let tokens = pointer_tokens(pointer)?;
    let Some((last, parent)) = tokens.split_last() else {
        let removed = std::mem::take(root);
        budget.released(&removed)?;
        return Ok(removed);
    };
    let removed = match resolve_mut(root, parent)? {
        Value::Object(m) => m.remove(last).ok_or_else(|| format!("no member \"{}\"", crate::coerce::clip(last)))?,
        Value::Array(a) => {
            let i = array_index(last)?;
            if i >= a.len() {
                return Err(format!("index {i} is out of bounds").into());
            }
            budget.shifted(a.len() - i)?;
            a.remove(i)
        }
        _ => return Err(PatchError::Op("the parent is a scalar".to_owned())),
    };
    budget.released(&removed)?;
    Ok(removed)
}

fn add_at(root: &mut Value, pointer: &str, value: Value, replace: bool, budget: &mut Budget) -> PatchResult<()> {
    budget.spend(pointer.len())?;
    let tokens = pointer_tokens(pointer)?;
    let Some((last, parent)) = tokens.split_last() else {
        let (old, _) = measure(root);
        budget.admit(&value, 0, old)?;
        budget.spend(old)?;
        *root = value;
        return Ok(());
    };
    let depth = tokens.len();
    match resolve_mut(root, parent)? {
        Value::Object(m) => {
            let old = match m.get(last) {
                Some(old) => measure(old).0,
                None if replace => {
                    return Err(format!("no member \"{}\" to replace", crate::coerce::clip(last)).into());
                }
                None => 0,
            };
            budget.spend(old)?;
            let member = 2 * PatchLimits::VALUE_BYTES + last.len();
            budget.admit(&value, depth, old)?;
            if old == 0 {
                budget.size = budget.size.saturating_add(member);
            }
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" && !replace {
                budget.admit(&value, depth, 0)?;
                budget.size = budget.size.saturating_add(PatchLimits::VALUE_BYTES);
                a.push(value);
                return Ok(());
            }
            let i = array_index(last)?;
            match (replace, i.cmp(&a.len())) {
                (true, std::cmp::Ordering::Less) => {
                    let (old, _) = measure(&a[i]);
                    budget.spend(old)?;
                    budget.admit(&value, depth, old)?;
                    a[i] = value;
                }
                (false, std::cmp::Ordering::Less | std::cmp::Ordering::Equal) => {
                    budget.shifted(a.len() - i)?;
                    budget.admit(&value, depth, 0)?;
                    budget.size = budget.size.saturating_add(PatchLimits::VALUE_BYTES);
                    a.insert(i, value);
                }
                _ => return Err(format!("index {i} is out of bounds").into()),
            }
            Ok(())
        }
        _ => Err(PatchError::Op("the parent is a scalar".to_owned())),
    }
}

impl PatchOp {
    /// The length of the operation's text (what the default limits are derived from).
    fn text_len(&self) -> usize {
        let value = self.value.as_ref().map_or(0, |v| v.get().len());
        let from = self.from.as_ref().map_or(0, String::len);
        self.op.len().saturating_add(self.path.len()).saturating_add(value).saturating_add(from).saturating_add(16)
    }

    fn value(&self, budget: &mut Budget) -> PatchResult<Value> {
        let raw = self.value.as_ref().ok_or_else(|| format!("\"{}\" needs a value", crate::coerce::clip(&self.op)))?;
        budget.spend(raw.get().len())?;
        serde_json::from_str(raw.get()).map_err(|e| PatchError::Op(e.to_string()))
    }

    /// Applies this operation to `target` (RFC 6902), within the default [`PatchLimits`] for this
    /// one operation.
    pub fn apply(&self, target: &mut Value) -> std::result::Result<(), String> {
        let mut budget = Budget::new(target, self.text_len(), PatchLimits::new());
        self.apply_within(target, &mut budget).map_err(PatchError::into_message)
    }

    fn apply_within(&self, target: &mut Value, budget: &mut Budget) -> PatchResult<()> {
        match self.op.as_str() {
            "add" => add_at(target, &self.path, self.value(budget)?, false, budget),
            "replace" => add_at(target, &self.path, self.value(budget)?, true, budget),
            "remove" => remove_at(target, &self.path, budget).map(drop),
            "move" | "copy" => {
                let from = self.from.as_deref().ok_or_else(|| format!("\"{}\" needs \"from\"", self.op))?;
                let value = if self.op == "move" {
                    remove_at(target, from, budget)?
                } else {
                    budget.spend(from.len())?;
                    let source = resolve_mut(target, &pointer_tokens(from)?)?;
                    // Measured (and refused) before the copy is made.
                    let (size, height) = measure(source);
                    budget.spend(size)?;
                    let depth = pointer_tokens(&self.path)?.len();
                    budget.check_depth(depth, height)?;
                    if budget.size.saturating_add(size) > budget.max_size {
                        return Err(PatchError::Limit(format!(
                            "the patched document would exceed the patch size limit ({} bytes; PatchLimits::max_size)",
                            budget.max_size
                        )));
                    }
                    source.clone()
                };
                add_at(target, &self.path, value, false, budget)
            }
            "test" => {
                let expected = self.value(budget)?;
                budget.spend(measure(&expected).0)?;
                budget.spend(self.path.len())?;
                let actual = resolve_mut(target, &pointer_tokens(&self.path)?)?;
                if *actual == expected {
                    Ok(())
                } else {
                    Err(format!("test failed at \"{}\"", crate::coerce::clip(&self.path)).into())
                }
            }
            other => Err(format!("unknown patch operation \"{}\"", crate::coerce::clip(other)).into()),
        }
    }
}

/// Writes an object member by member (`$type` first if given) through this crate's ordered-object
/// path; other serializers see a plain map.
struct Members<'a>(Vec<(&'a str, Member<'a>)>);

enum Member<'a> {
    Str(&'a str),
    U64(u64),
    Raw(&'a RawJson),
    Entity(&'a Entity),
    Entities(&'a IndexMap<String, Entity>),
    Components(&'a IndexMap<String, Component>),
    Instances(&'a IndexMap<String, Instance>),
    Patches(&'a [PatchOp]),
}

impl Serialize for Member<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            Member::Str(s) => serializer.serialize_str(s),
            Member::U64(u) => serializer.serialize_u64(*u),
            Member::Raw(r) => r.serialize(serializer),
            Member::Entity(e) => e.serialize(serializer),
            Member::Entities(m) => m.serialize(serializer),
            Member::Components(m) => m.serialize(serializer),
            Member::Instances(m) => m.serialize(serializer),
            Member::Patches(p) => p.serialize(serializer),
        }
    }
}

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        struct Map<'m, 'a>(&'m [(&'a str, Member<'a>)]);
        impl Serialize for Map<'_, '_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(self.0.len()))?;
                for (k, v) in self.0 {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
        serializer.serialize_newtype_struct(POLY, &Map(&self.0))
    }
}

fn extras<'a>(members: &mut Vec<(&'a str, Member<'a>)>, extra: &'a IndexMap<String, RawJson>) {
    members.extend(extra.iter().map(|(k, v)| (k.as_str(), Member::Raw(v))));
}

impl Serialize for Prefab {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = vec![("ContainerEntity", Member::Entity(&self.container_entity))];
        if !self.entities.is_empty() {
            m.push(("Entities", Member::Entities(&self.entities)));
        }
        if !self.instances.is_empty() {
            m.push(("Instances", Member::Instances(&self.instances)));
        }
        extras(&mut m, &self.extra);
        Members(m).serialize(serializer)
    }
}

impl Serialize for Entity {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = vec![("Id", Member::Str(&self.id)), ("Name", Member::Str(&self.name))];
        m.push(("Components", Member::Components(&self.components)));
        extras(&mut m, &self.extra);
        Members(m).serialize(serializer)
    }
}

impl Serialize for Component {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = Vec::with_capacity(self.fields.len() + 2);
        if !self.type_string.is_empty() {
            m.push(("$type", Member::Str(&self.type_string)));
        }
        if let Some(id) = self.id {
            m.push(("Id", Member::U64(id)));
        }
        extras(&mut m, &self.fields);
        Members(m).serialize(serializer)
    }
}

impl Serialize for Instance {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = vec![("Source", Member::Str(&self.source)), ("Patches", Member::Patches(&self.patches))];
        extras(&mut m, &self.extra);
        Members(m).serialize(serializer)
    }
}

impl Serialize for PatchOp {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        let mut m = vec![("op", Member::Str(&self.op)), ("path", Member::Str(&self.path))];
        if let Some(value) = &self.value {
            m.push(("value", Member::Raw(value)));
        }
        if let Some(from) = &self.from {
            m.push(("from", Member::Str(from)));
        }
        extras(&mut m, &self.extra);
        Members(m).serialize(serializer)
    }
}

/// `Deserialize` for a model object: known members (case-insensitive names) into fields, the rest
/// kept raw in `$extra` in document order.
macro_rules! model_deserialize {
    ($t:ident, $what:literal, $extra:ident, { $($name:literal => $field:ident $(: $wrap:ident)?),* $(,)? }) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $t;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str($what)
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<$t, A::Error> {
                        let mut out = $t::default();
                        while let Some(key) = map.next_key::<String>()? {
                            $(
                                if key == $name || (!$name.starts_with('$') && key.eq_ignore_ascii_case($name)) {
                                    out.$field = $($wrap)?(map.next_value()?);
                                    continue;
                                }
                            )*
                            let value = map.next_value::<RawJson>()?;
                            out.$extra.insert(key, value);
                        }
                        Ok(out)
                    }
                }
                deserializer.deserialize_map(V)
            }
        }
    };
}

model_deserialize!(Prefab, "a prefab object", extra, {
    "ContainerEntity" => container_entity,
    "Entities" => entities,
    "Instances" => instances,
});
model_deserialize!(Entity, "an entity object", extra, { "Id" => id, "Name" => name, "Components" => components });
model_deserialize!(Component, "a component object", fields, { "$type" => type_string, "Id" => id: Some });
model_deserialize!(Instance, "a prefab instance object", extra, { "Source" => source, "Patches" => patches });
model_deserialize!(PatchOp, "a JSON Patch operation", extra, {
    "op" => op,
    "path" => path,
    "value" => value: Some,
    "from" => from: Some,
});

/// `Serialize` and `Deserialize` for a typed struct: O3DE field names, defaults stripped on
/// store, case-insensitive names and O3DE's coercions on load.
macro_rules! typed_struct {
    ($t:ident, $name:literal, { $($json:literal => $field:ident),* $(,)? }) => {
        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
                use serde_core::ser::SerializeStruct;
                let mut s = serializer.serialize_struct($name, [$($json),*].len())?;
                $(s.serialize_field($json, &self.$field)?;)*
                s.end()
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Self, D::Error> {
                const FIELDS: &[&str] = &[$($json),*];
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $t;

                    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                        f.write_str(concat!("a ", $name, " object"))
                    }

                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<$t, A::Error> {
                        let mut out = $t::default();
                        while let Some(key) = map.next_key::<String>()? {
                            $(
                                if key.eq_ignore_ascii_case($json) {
                                    out.$field = map.next_value()?;
                                    continue;
                                }
                            )*
                            map.next_value::<de::IgnoredAny>()?;
                        }
                        Ok(out)
                    }
                }
                deserializer.deserialize_struct($name, FIELDS, V)
            }
        }
    };
}

typed_struct!(EditorTransform, "EditorTransform", {
    "Translate" => translate,
    "Rotate" => rotate,
    "Scale" => scale,
    "Locked" => locked,
    "UniformScale" => uniform_scale,
});

typed_struct!(TransformComponent, "TransformComponent", {
    "Parent Entity" => parent_entity,
    "Transform Data" => transform_data,
    "Parent Activation Transform Mode" => parent_activation_transform_mode,
    "IsStatic" => is_static,
    "InterpolatePosition" => interpolate_position,
    "InterpolateRotation" => interpolate_rotation,
});
