//! serde-o3de's rows: a generic [`Codec`] on the four datasets, and the issue's own benchmark, a
//! generated prefab-like document (≥ 10 MB of O3DE JSON) loaded and stored by serde-o3de and by
//! serde_json's typed `from_slice`/`to_writer` on the same struct.

use std::collections::BTreeMap;
use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput};
use serde::{Deserialize, Serialize};
use serde_o3de::Vector3;
use testkit::rng::Pcg32;

use super::Codec;

/// serde-o3de with no default object (the `Codec` interface has no `Default` bound): struct
/// members are all written, zero values in containers are `{}`; loads apply O3DE's rules.
pub struct SerdeO3de;

impl Codec for SerdeO3de {
    const NAME: &'static str = "serde-o3de";
    fn encode<T: Serialize>(value: &T, buf: &mut Vec<u8>) {
        let mut ser = serde_o3de::Serializer::with_buffer(std::mem::take(buf));
        value.serialize(&mut ser).expect("serde-o3de encode");
        *buf = ser.into_inner();
    }
    fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> T {
        serde_o3de::from_slice(bytes).expect("serde-o3de decode")
    }
}

/// The dataset name of the prefab benchmark.
pub const DATASET: &str = "o3de_prefab";

/// A prefab-like document, typed. The alias-keyed maps store their entries against the entries'
/// `Default` (`serde_o3de::elements`), as O3DE does, so the document is default-stripped like a real
/// prefab.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchPrefab {
    #[serde(rename = "ContainerEntity")]
    pub container_entity: BenchEntity,
    #[serde(rename = "Entities", with = "serde_o3de::elements")]
    pub entities: BTreeMap<String, BenchEntity>,
    #[serde(rename = "Instances", with = "serde_o3de::elements")]
    pub instances: BTreeMap<String, BenchInstance>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchEntity {
    #[serde(rename = "Id")]
    pub id: String,
    #[serde(rename = "Name")]
    pub name: String,
    #[serde(rename = "Components", with = "serde_o3de::elements")]
    pub components: BTreeMap<String, BenchComponent>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchComponent {
    #[serde(rename = "$type")]
    pub type_name: String,
    #[serde(rename = "Id")]
    pub id: u64,
    #[serde(rename = "Parent Entity")]
    pub parent_entity: Option<String>,
    #[serde(rename = "Transform Data")]
    pub transform: Option<BenchTransform>,
    #[serde(rename = "Child Entity Order")]
    pub child_order: Vec<String>,
    #[serde(rename = "Visible")]
    pub visible: bool,
    #[serde(rename = "Layers")]
    pub layers: Vec<u32>,
    #[serde(rename = "Properties")]
    pub properties: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchTransform {
    #[serde(rename = "Translate")]
    pub translate: Vector3,
    #[serde(rename = "Rotate")]
    pub rotate: Vector3,
    #[serde(rename = "Scale")]
    pub scale: Vector3,
    #[serde(rename = "UniformScale")]
    pub uniform_scale: f32,
    #[serde(rename = "Locked")]
    pub locked: bool,
}

impl Default for BenchTransform {
    fn default() -> Self {
        BenchTransform {
            translate: Vector3::default(),
            rotate: Vector3::default(),
            scale: Vector3::new(1.0, 1.0, 1.0),
            uniform_scale: 1.0,
            locked: false,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchInstance {
    #[serde(rename = "Source")]
    pub source: String,
    #[serde(rename = "Patches")]
    pub patches: Vec<BenchPatch>,
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct BenchPatch {
    pub op: String,
    pub path: String,
    pub value: f64,
}

const TYPES: [&str; 8] = [
    "EditorDisabledCompositionComponent",
    "EditorEntityIconComponent",
    "EditorInspectorComponent",
    "EditorLockComponent",
    "EditorOnlyEntityComponent",
    "EditorPendingCompositionComponent",
    "EditorVisibilityComponent",
    "SelectionComponent",
];

fn alias(rng: &mut Pcg32, prefix: &str) -> String {
    format!("{prefix}_[{}]", rng.next_u64() >> rng.below(24))
}

fn component(rng: &mut Pcg32, type_name: &str) -> BenchComponent {
    BenchComponent { type_name: type_name.to_owned(), id: rng.next_u64(), ..BenchComponent::default() }
}

fn entity(rng: &mut Pcg32, id: String, parent: &str) -> BenchEntity {
    let mut components = BTreeMap::new();
    let mut transform = component(rng, "{27F1E1A1-8D9D-4C3B-BD3A-AFB9762449C0} TransformComponent");
    // A pointer to "" would be written `{}` (O3DE's explicit default), which serde_json can't read.
    transform.parent_entity = (!parent.is_empty()).then(|| parent.to_owned());
    let mut data = BenchTransform {
        translate: Vector3::new(rng.f32_in(-500.0, 500.0), rng.f32_in(-500.0, 500.0), rng.f32_in(0.0, 100.0)),
        ..BenchTransform::default()
    };
    if rng.chance(1, 2) {
        data.rotate = Vector3::new(0.0, 0.0, rng.f32_in(-180.0, 180.0));
    }
    if rng.chance(1, 4) {
        data.uniform_scale = rng.f32_in(0.5, 2.0);
    }
    transform.transform = Some(data);
    components.insert(alias(rng, "Component"), transform);
    for type_name in TYPES {
        if rng.chance(7, 8) {
            let mut c = component(rng, type_name);
            if type_name == "EditorVisibilityComponent" {
                c.visible = rng.chance(3, 4);
            }
            components.insert(alias(rng, "Component"), c);
        }
    }
    let mut sort = component(rng, "EditorEntitySortComponent");
    sort.child_order = (0..rng.usize_in(0, 4)).map(|_| alias(rng, "Entity")).collect();
    components.insert(alias(rng, "Component"), sort);
    if rng.chance(1, 3) {
        let mut collider = component(rng, "EditorColliderComponent");
        collider.layers = (0..rng.usize_in(1, 4)).map(|_| (rng.next_u32() & 0xFF) | 1).collect();
        collider.properties =
            (0..rng.usize_in(1, 6)).map(|i| (format!("m_property{i}"), rng.f64_in(-10.0, 10.0))).collect();
        components.insert(alias(rng, "Component"), collider);
    }
    BenchEntity { id, name: rng.ident(4, 16), components }
}

/// Generates a document with `entities` entities (about 1 KB of O3DE JSON each).
pub fn generate(entities: usize) -> BenchPrefab {
    let mut rng = Pcg32::for_datasets();
    let container = entity(&mut rng, "ContainerEntity".to_owned(), "");
    let mut doc = BenchPrefab { container_entity: container, ..BenchPrefab::default() };
    for _ in 0..entities {
        let id = alias(&mut rng, "Entity");
        let e = entity(&mut rng, id.clone(), "ContainerEntity");
        doc.entities.insert(id, e);
    }
    for _ in 0..entities / 100 {
        let patches = (0..rng.usize_in(1, 6))
            .map(|i| BenchPatch {
                op: "replace".to_owned(),
                path: format!(
                    "/ContainerEntity/Components/Component_[{}]/Transform Data/Translate/{}",
                    rng.next_u64(),
                    i % 3
                ),
                value: f64::from(rng.f32_in(-100.0, 100.0)),
            })
            .collect();
        doc.instances
            .insert(alias(&mut rng, "Instance"), BenchInstance { source: "Prefabs/Crate.prefab".to_owned(), patches });
    }
    doc
}

/// Entities in the benchmark document: ≥ 10 MB of O3DE JSON.
pub const FULL: usize = 12_000;

/// The prefab rows: `o3de_prefab/{deserialize,serialize}/{serde-o3de,serde_json}`.
pub fn bench(c: &mut Criterion) {
    let doc = generate(FULL);
    let o3de = serde_o3de::to_vec(&doc).expect("store");
    let json = serde_json::to_vec(&doc).expect("serde_json");
    assert!(o3de.len() >= 10_000_000, "the document must be at least 10 MB, it is {}", o3de.len());
    assert_eq!(serde_o3de::from_slice::<BenchPrefab>(&o3de).expect("load"), doc);
    assert_eq!(serde_json::from_slice::<BenchPrefab>(&o3de).expect("serde_json reads O3DE JSON"), doc);
    super::record_size(DATASET, SerdeO3de::NAME, o3de.len());
    super::record_size(DATASET, "serde_json", json.len());

    let mut group = c.benchmark_group(format!("{DATASET}/deserialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(o3de.len() as u64)).sample_size(10);
    group.bench_function(SerdeO3de::NAME, |b| {
        b.iter(|| black_box(serde_o3de::from_slice::<BenchPrefab>(black_box(&o3de)).unwrap()))
    });
    group.bench_function("serde_json", |b| {
        b.iter(|| black_box(serde_json::from_slice::<BenchPrefab>(black_box(&o3de)).unwrap()))
    });
    group.finish();

    let mut group = c.benchmark_group(format!("{DATASET}/serialize"));
    group.sampling_mode(SamplingMode::Flat).throughput(Throughput::Bytes(o3de.len() as u64)).sample_size(10);
    let mut buf = Vec::with_capacity(json.len());
    group.bench_function(SerdeO3de::NAME, |b| {
        b.iter(|| {
            buf.clear();
            buf = serde_o3de::Options::new().to_vec_into(black_box(&doc), std::mem::take(&mut buf)).unwrap();
            black_box(buf.len());
        })
    });
    group.bench_function("serde_json", |b| {
        b.iter(|| {
            buf.clear();
            serde_json::to_writer(&mut buf, black_box(&doc)).unwrap();
            black_box(buf.len());
        })
    });
    group.finish();
}
