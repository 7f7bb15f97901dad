//! The fixed-size math types. Components are `f32` — Godot's `real_t` in standard builds — and
//! `i32` for the integer vectors. Values from double-precision builds (64-bit payloads) are
//! narrowed to `f32` on decode, exactly as a standard-precision engine reads them.

use crate::magic;

use super::godot_struct;

godot_struct! {
    /// `Vector2`: (x, y).
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Vector2 as magic::VECTOR2 {
        /// X.
        pub x: f32,
        /// Y.
        pub y: f32,
    }
}

godot_struct! {
    /// `Vector2i` (Godot 4): integer (x, y).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Vector2i as magic::VECTOR2I {
        /// X.
        pub x: i32,
        /// Y.
        pub y: i32,
    }
}

godot_struct! {
    /// `Vector3`: (x, y, z).
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Vector3 as magic::VECTOR3 {
        /// X.
        pub x: f32,
        /// Y.
        pub y: f32,
        /// Z.
        pub z: f32,
    }
}

godot_struct! {
    /// `Vector3i` (Godot 4): integer (x, y, z).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Vector3i as magic::VECTOR3I {
        /// X.
        pub x: i32,
        /// Y.
        pub y: i32,
        /// Z.
        pub z: i32,
    }
}

godot_struct! {
    /// `Vector4` (Godot 4): (x, y, z, w).
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Vector4 as magic::VECTOR4 {
        /// X.
        pub x: f32,
        /// Y.
        pub y: f32,
        /// Z.
        pub z: f32,
        /// W.
        pub w: f32,
    }
}

godot_struct! {
    /// `Vector4i` (Godot 4): integer (x, y, z, w).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Vector4i as magic::VECTOR4I {
        /// X.
        pub x: i32,
        /// Y.
        pub y: i32,
        /// Z.
        pub z: i32,
        /// W.
        pub w: i32,
    }
}

godot_struct! {
    /// `Rect2`: position and size.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Rect2 as magic::RECT2 {
        /// Top-left corner.
        pub position: Vector2,
        /// Width and height.
        pub size: Vector2,
    }
}

godot_struct! {
    /// `Rect2i` (Godot 4): integer position and size.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Rect2i as magic::RECT2I {
        /// Top-left corner.
        pub position: Vector2i,
        /// Width and height.
        pub size: Vector2i,
    }
}

godot_struct! {
    /// `Transform2D`: the x and y basis columns and the origin (GDScript's `.x`, `.y`,
    /// `.origin`), written in that order.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Transform2D as magic::TRANSFORM2D {
        /// The x axis (first column).
        pub x: Vector2,
        /// The y axis (second column).
        pub y: Vector2,
        /// The translation.
        pub origin: Vector2,
    }
}

godot_struct! {
    /// `Plane`: normal and distance from the origin.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Plane as magic::PLANE {
        /// The normal.
        pub normal: Vector3,
        /// The distance from the origin along the normal.
        pub d: f32,
    }
}

godot_struct! {
    /// `Quaternion` (Godot 3 `Quat`): (x, y, z, w).
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Quaternion as magic::QUATERNION {
        /// X.
        pub x: f32,
        /// Y.
        pub y: f32,
        /// Z.
        pub z: f32,
        /// W.
        pub w: f32,
    }
}

godot_struct! {
    /// `AABB`: position and size.
    #[derive(Clone, Copy, Debug, Default, PartialEq)]
    pub struct Aabb as magic::AABB {
        /// The minimum corner.
        pub position: Vector3,
        /// The extent.
        pub size: Vector3,
    }
}

godot_struct! {
    /// `Basis`: a 3×3 matrix, stored and written as rows (row-major), like the engine.
    ///
    /// GDScript's `Basis(x, y, z)` constructor and its `.x/.y/.z` properties are *columns*; use
    /// [`Basis::from_columns`] and [`Basis::column`] for that view.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Basis as magic::BASIS {
        /// The rows.
        pub rows: [Vector3; 3],
    }
}

godot_struct! {
    /// `Transform3D` (Godot 3 `Transform`): basis and origin.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Transform3D as magic::TRANSFORM3D {
        /// Rotation, scale and shear.
        pub basis: Basis,
        /// The translation.
        pub origin: Vector3,
    }
}

godot_struct! {
    /// `Projection` (Godot 4): a 4×4 matrix stored and written as columns (column-major), like
    /// the engine.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Projection as magic::PROJECTION {
        /// The columns (GDScript's `.x`, `.y`, `.z`, `.w`).
        pub columns: [Vector4; 4],
    }
}

godot_struct! {
    /// `Color`: RGBA as `f32`, which it stays on the wire even in double-precision builds.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Color as magic::COLOR {
        /// Red.
        pub r: f32,
        /// Green.
        pub g: f32,
        /// Blue.
        pub b: f32,
        /// Alpha.
        pub a: f32,
    }
}

impl Vector2 {
    /// A vector from its components.
    pub const fn new(x: f32, y: f32) -> Self {
        Vector2 { x, y }
    }
}

impl Vector2i {
    /// A vector from its components.
    pub const fn new(x: i32, y: i32) -> Self {
        Vector2i { x, y }
    }
}

impl Vector3 {
    /// A vector from its components.
    pub const fn new(x: f32, y: f32, z: f32) -> Self {
        Vector3 { x, y, z }
    }
}

impl Vector3i {
    /// A vector from its components.
    pub const fn new(x: i32, y: i32, z: i32) -> Self {
        Vector3i { x, y, z }
    }
}

impl Vector4 {
    /// A vector from its components.
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Vector4 { x, y, z, w }
    }
}

impl Vector4i {
    /// A vector from its components.
    pub const fn new(x: i32, y: i32, z: i32, w: i32) -> Self {
        Vector4i { x, y, z, w }
    }
}

impl Rect2 {
    /// A rectangle from its corner and size (`Rect2(x, y, w, h)` in GDScript).
    pub const fn new(x: f32, y: f32, width: f32, height: f32) -> Self {
        Rect2 { position: Vector2::new(x, y), size: Vector2::new(width, height) }
    }
}

impl Rect2i {
    /// A rectangle from its corner and size.
    pub const fn new(x: i32, y: i32, width: i32, height: i32) -> Self {
        Rect2i { position: Vector2i::new(x, y), size: Vector2i::new(width, height) }
    }
}

impl Transform2D {
    /// The identity transform.
    pub const IDENTITY: Transform2D =
        Transform2D { x: Vector2::new(1.0, 0.0), y: Vector2::new(0.0, 1.0), origin: Vector2::new(0.0, 0.0) };

    /// A transform from its axes and origin (`Transform2D(x, y, origin)` in GDScript).
    pub const fn new(x: Vector2, y: Vector2, origin: Vector2) -> Self {
        Transform2D { x, y, origin }
    }
}

impl Default for Transform2D {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Plane {
    /// A plane from its normal components and distance (`Plane(a, b, c, d)` in GDScript).
    pub const fn new(a: f32, b: f32, c: f32, d: f32) -> Self {
        Plane { normal: Vector3::new(a, b, c), d }
    }
}

impl Quaternion {
    /// The identity rotation.
    pub const IDENTITY: Quaternion = Quaternion { x: 0.0, y: 0.0, z: 0.0, w: 1.0 };

    /// A quaternion from its components.
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Quaternion { x, y, z, w }
    }
}

impl Default for Quaternion {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Aabb {
    /// A box from its corner and size.
    pub const fn new(position: Vector3, size: Vector3) -> Self {
        Aabb { position, size }
    }
}

impl Basis {
    /// The identity matrix.
    pub const IDENTITY: Basis =
        Basis { rows: [Vector3::new(1.0, 0.0, 0.0), Vector3::new(0.0, 1.0, 0.0), Vector3::new(0.0, 0.0, 1.0)] };

    /// A matrix from its rows.
    pub const fn from_rows(x: Vector3, y: Vector3, z: Vector3) -> Self {
        Basis { rows: [x, y, z] }
    }

    /// A matrix from its columns, like GDScript's `Basis(x_axis, y_axis, z_axis)`.
    pub const fn from_columns(x: Vector3, y: Vector3, z: Vector3) -> Self {
        Basis { rows: [Vector3::new(x.x, y.x, z.x), Vector3::new(x.y, y.y, z.y), Vector3::new(x.z, y.z, z.z)] }
    }

    /// Column `i` (0 = x axis, 1 = y axis, 2 = z axis), GDScript's `basis.x` etc.
    ///
    /// # Panics
    /// If `i > 2`.
    pub fn column(&self, i: usize) -> Vector3 {
        let pick = |v: Vector3| match i {
            0 => v.x,
            1 => v.y,
            2 => v.z,
            _ => panic!("Basis has three columns"),
        };
        Vector3::new(pick(self.rows[0]), pick(self.rows[1]), pick(self.rows[2]))
    }
}

impl Default for Basis {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform3D {
    /// The identity transform.
    pub const IDENTITY: Transform3D = Transform3D { basis: Basis::IDENTITY, origin: Vector3::new(0.0, 0.0, 0.0) };

    /// A transform from its basis and origin.
    pub const fn new(basis: Basis, origin: Vector3) -> Self {
        Transform3D { basis, origin }
    }
}

impl Default for Transform3D {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Projection {
    /// The identity matrix.
    pub const IDENTITY: Projection = Projection {
        columns: [
            Vector4::new(1.0, 0.0, 0.0, 0.0),
            Vector4::new(0.0, 1.0, 0.0, 0.0),
            Vector4::new(0.0, 0.0, 1.0, 0.0),
            Vector4::new(0.0, 0.0, 0.0, 1.0),
        ],
    };

    /// A matrix from its columns.
    pub const fn from_columns(x: Vector4, y: Vector4, z: Vector4, w: Vector4) -> Self {
        Projection { columns: [x, y, z, w] }
    }
}

impl Default for Projection {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Color {
    /// A color from its components (`Color(r, g, b, a)` in GDScript).
    pub const fn new(r: f32, g: f32, b: f32, a: f32) -> Self {
        Color { r, g, b, a }
    }

    /// An opaque color (`Color(r, g, b)` in GDScript).
    pub const fn rgb(r: f32, g: f32, b: f32) -> Self {
        Color { r, g, b, a: 1.0 }
    }
}

impl Default for Color {
    /// Opaque black, like Godot's `Color()`.
    fn default() -> Self {
        Color::rgb(0.0, 0.0, 0.0)
    }
}

macro_rules! array_conversions {
    ($($ty:ident: [$elem:ty; $n:literal] => $($field:ident),+;)*) => {$(
        impl From<[$elem; $n]> for $ty {
            fn from([$($field),+]: [$elem; $n]) -> Self {
                $ty { $($field),+ }
            }
        }

        impl From<$ty> for [$elem; $n] {
            fn from(v: $ty) -> Self {
                [$(v.$field),+]
            }
        }
    )*};
}

array_conversions! {
    Vector2: [f32; 2] => x, y;
    Vector2i: [i32; 2] => x, y;
    Vector3: [f32; 3] => x, y, z;
    Vector3i: [i32; 3] => x, y, z;
    Vector4: [f32; 4] => x, y, z, w;
    Vector4i: [i32; 4] => x, y, z, w;
    Quaternion: [f32; 4] => x, y, z, w;
    Color: [f32; 4] => r, g, b, a;
}
