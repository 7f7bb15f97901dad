//! `mesh`: one triangle mesh of `f32` vectors. Bulk float throughput, the closest thing to an asset blob.

use serde::{Deserialize, Serialize};

use crate::rng::Pcg32;

/// A 3-component `f32` vector.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Vector3 {
    /// X.
    pub x: f32,
    /// Y.
    pub y: f32,
    /// Z.
    pub z: f32,
}

/// A triangle: three vertices and a face normal.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Triangle {
    /// First vertex.
    pub v0: Vector3,
    /// Second vertex.
    pub v1: Vector3,
    /// Third vertex.
    pub v2: Vector3,
    /// Unit face normal.
    pub normal: Vector3,
}

/// The whole `mesh` dataset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "bitcode", derive(bitcode::Encode, bitcode::Decode))]
#[cfg_attr(feature = "wincode", derive(wincode::SchemaWrite, wincode::SchemaRead))]
pub struct Mesh {
    /// The triangles.
    pub triangles: Vec<Triangle>,
}

fn vector(rng: &mut Pcg32) -> Vector3 {
    Vector3 { x: rng.f32_in(-100.0, 100.0), y: rng.f32_in(-100.0, 100.0), z: rng.f32_in(-100.0, 100.0) }
}

fn normal(a: Vector3, b: Vector3, c: Vector3) -> Vector3 {
    let (ux, uy, uz) = (b.x - a.x, b.y - a.y, b.z - a.z);
    let (vx, vy, vz) = (c.x - a.x, c.y - a.y, c.z - a.z);
    let (nx, ny, nz) = (uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx);
    let len = (nx * nx + ny * ny + nz * nz).sqrt();
    if len > 0.0 { Vector3 { x: nx / len, y: ny / len, z: nz / len } } else { Vector3 { x: 0.0, y: 0.0, z: 1.0 } }
}

/// Generates a mesh of `count` random triangles from the dataset seed.
pub fn generate(count: usize) -> Mesh {
    let mut rng = Pcg32::for_datasets();
    let triangles = (0..count)
        .map(|_| {
            let (v0, v1, v2) = (vector(&mut rng), vector(&mut rng), vector(&mut rng));
            Triangle { v0, v1, v2, normal: normal(v0, v1, v2) }
        })
        .collect();
    Mesh { triangles }
}
