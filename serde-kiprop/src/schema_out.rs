//! Writing a [`TypeList`] back out as a wiztype v2 JSON dump, the form katsuba and
//! [`TypeList::from_json`] load.

use serde_json::{Map, Value as Json, json};

use crate::error::{Error, ErrorKind, Result};
use crate::schema::{ClassDef, PropertyDef, TypeList};

impl TypeList {
    /// The list as a wiztype v2 dump (`{"version": 2, "classes": {"<hash>": {...}}}`), which
    /// katsuba's `TypeList` and [`TypeList::from_json`] load: a tool can build a list from Rust
    /// schemas ([`TypeList::of`], [`TypeList::from_schemas`]) and hand it to katsuba, or merge
    /// several dumps and save the result.
    ///
    /// Every class and property the list knows is written: name, tag (`hash`), bases, property
    /// id, flags, type string, tag, container-ness and enum options. What the list does not keep
    /// is written the way the game's dumps have it: `offset` is a made-up `72 + 8 × id` (no
    /// decoder reads it), `singleton` is `false`, `container` is `"List"` for a container and
    /// `"Static"` otherwise, `pointer` is worked out from the type string, and enum options lose
    /// their `__DEFAULT` entry.
    ///
    /// Fails with [`ErrorKind::TypeList`] for a property of a static schema declared without a
    /// type string ([`PropertySchema::ty`](crate::PropertySchema::ty)): a dump needs one.
    ///
    /// ```
    /// use serde_kiprop::TypeList;
    /// let types = TypeList::from_path("tests/data/generated/types.json")?;
    /// let again = TypeList::from_json(&types.to_json()?)?;
    /// assert_eq!(again.len(), types.len());
    /// # Ok::<(), serde_kiprop::Error>(())
    /// ```
    pub fn to_json(&self) -> Result<String> {
        let mut classes = Map::new();
        for class in self.classes() {
            classes.insert(class.hash().to_string(), class_json(class)?);
        }
        // katsuba recognises a v2 dump only when `version` comes first, so it is written by hand
        // ahead of the (sorted) class map.
        Ok(format!("{{\"version\": 2, \"classes\": {}}}", Json::Object(classes)))
    }
}

fn class_json(class: &ClassDef) -> Result<Json> {
    let mut props = Map::new();
    for p in class.properties() {
        props.insert(p.name().to_owned(), property_json(class, p)?);
    }
    Ok(json!({
        "name": class.name(), "bases": class.bases(), "hash": class.hash(), "singleton": false,
        "properties": props,
    }))
}

fn property_json(class: &ClassDef, p: &PropertyDef) -> Result<Json> {
    let ty = p.type_name().ok_or_else(|| {
        Error::new(ErrorKind::TypeList(format!(
            "{}::{}: no type string (declare one with PropertySchema::ty to write a dump)",
            class.name(),
            p.name()
        )))
    })?;
    let mut out = json!({
        "type": ty, "id": p.id(), "offset": 72 + 8 * u64::from(p.id()), "flags": p.flags(),
        "container": if p.is_dynamic() { "List" } else { "Static" }, "dynamic": p.is_dynamic(),
        "singleton": false, "pointer": ty.ends_with('*') || ty.starts_with("class SharedPointer<"),
        "hash": p.hash(),
    });
    if let Some(def) = p.enum_def() {
        // Values as the dumps write them: C++ enum values are ints, so the top bit is a sign.
        let options: Map<String, Json> = def.options.iter().map(|(n, v)| (n.clone(), (*v as i32).into())).collect();
        out["enum_options"] = options.into();
    }
    Ok(out)
}
