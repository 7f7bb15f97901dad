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

use crate::de::POLY;
use crate::error::{Error, Result};
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
    /// RFC 6902. Stops at the first operation that fails (a missing path, a failed `test`).
    pub fn apply_patches(&self, target: &mut Value) -> Result<()> {
        for (i, op) in self.patches.iter().enumerate() {
            op.apply(target).map_err(|e| Error::data(crate::Outcome::Invalid, format!("patch {i}: {e}")))?;
        }
        Ok(())
    }
}

/// Splits a JSON Pointer into unescaped tokens.
fn pointer_tokens(pointer: &str) -> std::result::Result<Vec<String>, String> {
    if pointer.is_empty() {
        return Ok(Vec::new());
    }
    let Some(rest) = pointer.strip_prefix('/') else {
        return Err(format!("\"{pointer}\" is not a JSON Pointer"));
    };
    Ok(rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).collect())
}

fn resolve_mut<'v>(root: &'v mut Value, tokens: &[String]) -> std::result::Result<&'v mut Value, String> {
    let mut node = root;
    for t in tokens {
        node = match node {
            Value::Object(m) => m.get_mut(t).ok_or_else(|| format!("no member \"{t}\""))?,
            Value::Array(a) => {
                let i: usize = t.parse().map_err(|_| format!("\"{t}\" is not an array index"))?;
                a.get_mut(i).ok_or_else(|| format!("index {i} is out of bounds"))?
            }
            _ => return Err(format!("\"{t}\" leads into a scalar")),
        };
    }
    Ok(node)
}

fn remove_at(root: &mut Value, pointer: &str) -> std::result::Result<Value, String> {
    let tokens = pointer_tokens(pointer)?;
    let Some((last, parent)) = tokens.split_last() else {
        return Ok(std::mem::take(root));
    };
    match resolve_mut(root, parent)? {
        Value::Object(m) => m.remove(last).ok_or_else(|| format!("no member \"{last}\"")),
        Value::Array(a) => {
            let i: usize = last.parse().map_err(|_| format!("\"{last}\" is not an array index"))?;
            if i < a.len() { Ok(a.remove(i)) } else { Err(format!("index {i} is out of bounds")) }
        }
        _ => Err("the parent is a scalar".to_owned()),
    }
}

fn add_at(root: &mut Value, pointer: &str, value: Value, replace: bool) -> std::result::Result<(), String> {
    let tokens = pointer_tokens(pointer)?;
    let Some((last, parent)) = tokens.split_last() else {
        *root = value;
        return Ok(());
    };
    match resolve_mut(root, parent)? {
        Value::Object(m) => {
            if replace && !m.contains_key(last) {
                return Err(format!("no member \"{last}\" to replace"));
            }
            m.insert(last.clone(), value);
            Ok(())
        }
        Value::Array(a) => {
            if last == "-" && !replace {
                a.push(value);
                return Ok(());
            }
            let i: usize = last.parse().map_err(|_| format!("\"{last}\" is not an array index"))?;
            match (replace, i.cmp(&a.len())) {
                (true, std::cmp::Ordering::Less) => a[i] = value,
                (false, std::cmp::Ordering::Less | std::cmp::Ordering::Equal) => a.insert(i, value),
                _ => return Err(format!("index {i} is out of bounds")),
            }
            Ok(())
        }
        _ => Err("the parent is a scalar".to_owned()),
    }
}

impl PatchOp {
    fn value(&self) -> std::result::Result<Value, String> {
        let raw = self.value.as_ref().ok_or_else(|| format!("\"{}\" needs a value", self.op))?;
        serde_json::from_str(raw.get()).map_err(|e| e.to_string())
    }

    /// Applies this operation to `target` (RFC 6902).
    pub fn apply(&self, target: &mut Value) -> std::result::Result<(), String> {
        match self.op.as_str() {
            "add" => add_at(target, &self.path, self.value()?, false),
            "replace" => add_at(target, &self.path, self.value()?, true),
            "remove" => remove_at(target, &self.path).map(drop),
            "move" | "copy" => {
                let from = self.from.as_deref().ok_or_else(|| format!("\"{}\" needs \"from\"", self.op))?;
                let value = if self.op == "move" {
                    remove_at(target, from)?
                } else {
                    resolve_mut(target, &pointer_tokens(from)?)?.clone()
                };
                add_at(target, &self.path, value, false)
            }
            "test" => {
                let expected = self.value()?;
                let actual = resolve_mut(target, &pointer_tokens(&self.path)?)?;
                if *actual == expected { Ok(()) } else { Err(format!("test failed at \"{}\"", self.path)) }
            }
            other => Err(format!("unknown patch operation \"{other}\"")),
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
