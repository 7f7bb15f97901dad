//! `AZ::Vector2/3/4`, `AZ::Quaternion`, `AZ::Matrix3x3/3x4/4x4` and `AZ::Transform`.

use serde_core::ser::SerializeStruct;
use serde_core::{Serialize, Serializer};

use super::{Input, Items, Json, Loaded, Native, float_element};
use crate::report::{Outcome, ResultCode, Task};

/// Member names of vector objects, looked up exactly as `X` then `x` (not case-insensitively).
const AXES: [[&str; 2]; 4] = [["X", "x"], ["Y", "y"], ["Z", "z"], ["W", "w"]];

/// Loads an N-float array form: at least N elements, each through the float rules; if any
/// element fails the target is untouched and that failure is the result.
fn load_array<const N: usize>(current: &mut [f32; N], items: &Items<'_>, what: &str) -> Loaded {
    if items.len() < N {
        return Loaded::new(
            Outcome::Unsupported,
            format!("{what} needs at least {N} numbers, the array has {}", items.len()),
        );
    }
    let mut values = *current;
    for (i, v) in values.iter_mut().enumerate() {
        match float_element(&items.get(i), *v) {
            Ok((x, _)) => *v = x,
            Err(mut failure) => {
                failure.message = format!("element {i}: {}", failure.message);
                return failure;
            }
        }
    }
    *current = values;
    Loaded::new(Outcome::Success, format!("{what} loaded"))
}

/// Loads a float member looked up by its exact names; a missing member keeps `value`.
fn load_member(value: &mut f32, object: &Json, names: &[&str], result: &mut ResultCode) -> Result<(), Loaded> {
    match names.iter().find_map(|name| object.member(name).map(|v| (*name, v))) {
        Some((name, json)) => match float_element(&json.tok(), *value) {
            Ok((v, _)) => {
                *value = v;
                result.combine_with(ResultCode::new(Task::ReadField, Outcome::Success));
                Ok(())
            }
            Err(mut failure) => {
                failure.message = format!("\"{name}\": {}", failure.message);
                Err(failure)
            }
        },
        None => {
            result.combine_with(ResultCode::new(Task::ReadField, Outcome::DefaultsUsed));
            Ok(())
        }
    }
}

/// Loads the object form of a vector: `X`/`x`, `Y`/`y`, … ; missing members keep their values.
fn load_object<const N: usize>(current: &mut [f32; N], object: &Json, what: &str) -> Loaded {
    let mut values = *current;
    let mut result = ResultCode::UNSET;
    for (i, v) in values.iter_mut().enumerate() {
        if let Err(failure) = load_member(v, object, &AXES[i], &mut result) {
            return failure;
        }
    }
    *current = values;
    Loaded::with(result, format!("{what} loaded"))
}

fn load_vector<const N: usize>(current: &mut [f32; N], input: &Input<'_>, what: &str) -> Loaded {
    match input {
        Input::Array(items) => load_array(current, items, what),
        Input::Other(Json::Obj(members)) if members.is_empty() => {
            *current = [0.0; N];
            Loaded::new(Outcome::DefaultsUsed, format!("{what} set to zero for an explicit default"))
        }
        Input::Other(object @ Json::Obj(_)) => load_object(current, object, what),
        Input::Other(other) => Loaded::new(
            Outcome::Unsupported,
            format!("{what} can only be read from an array or an object, not {}", other.kind()),
        ),
    }
}

macro_rules! vector {
    ($(#[$doc:meta])* $name:ident, $n:literal, $what:literal, [$($field:ident),*]) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Default)]
        pub struct $name {
            $(
                #[doc = concat!("The ", stringify!($field), " component.")]
                pub $field: f32,
            )*
        }

        impl $name {
            /// A vector from its components.
            pub const fn new($($field: f32),*) -> Self {
                $name { $($field),* }
            }

            /// The components in order.
            pub const fn to_array(self) -> [f32; $n] {
                [$(self.$field),*]
            }
        }

        impl From<[f32; $n]> for $name {
            fn from([$($field),*]: [f32; $n]) -> Self {
                $name { $($field),* }
            }
        }

        impl From<$name> for [f32; $n] {
            fn from(v: $name) -> Self {
                v.to_array()
            }
        }

        impl Native for $name {
            const NAME: &'static str = concat!("$serde_o3de::Native::", stringify!($name));
            const WHAT: &'static str = $what;

            fn load(&mut self, input: &Input<'_>) -> Loaded {
                let mut values = self.to_array();
                let loaded = load_vector(&mut values, input, $what);
                *self = values.into();
                loaded
            }
        }

        super::native_deserialize!($name);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_newtype_struct(<$name as Native>::NAME, &self.to_array())
            }
        }
    };
}

vector!(
    /// `AZ::Vector2`: `[x, y]`, or `{"X": x, "Y": y}` (each name exactly `X` or `x`).
    Vector2, 2, "a Vector2", [x, y]
);
vector!(
    /// `AZ::Vector3`: `[x, y, z]`, or an object with `X`/`x`, `Y`/`y`, `Z`/`z` (missing members
    /// keep their values, PartialDefaults). Array elements go through the float rules, so `"1.5"`
    /// and `true` load; fewer than 3 elements, or an element that fails, is Unsupported and leaves
    /// the vector untouched.
    Vector3, 3, "a Vector3", [x, y, z]
);
vector!(
    /// `AZ::Vector4`: `[x, y, z, w]` or an object with `X`/`x` … `W`/`w`.
    Vector4, 4, "a Vector4", [x, y, z, w]
);

/// `AZ::Quaternion` `(x, y, z, w)`: written `[x, y, z, w]`.
///
/// Read from that array, or from an object holding **three Euler angles in degrees, taken by
/// member position** (the names do not matter: `{"yaw": 90, "pitch": 0, "roll": 0}` is
/// X = 90°), composed as `rotX * rotY * rotZ`. `{}` is the identity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quaternion {
    /// x.
    pub x: f32,
    /// y.
    pub y: f32,
    /// z.
    pub z: f32,
    /// w.
    pub w: f32,
}

impl Default for Quaternion {
    fn default() -> Self {
        Quaternion::IDENTITY
    }
}

impl Quaternion {
    /// The identity rotation.
    pub const IDENTITY: Quaternion = Quaternion { x: 0.0, y: 0.0, z: 0.0, w: 1.0 };

    /// A quaternion from its components.
    pub const fn new(x: f32, y: f32, z: f32, w: f32) -> Self {
        Quaternion { x, y, z, w }
    }

    /// The components as `[x, y, z, w]`.
    pub const fn to_array(self) -> [f32; 4] {
        [self.x, self.y, self.z, self.w]
    }

    /// `AZ::Quaternion::SetFromEulerDegrees`: X, then Y, then Z (`rot = rotX * rotY * rotZ`).
    pub fn from_euler_degrees(degrees: [f32; 3]) -> Quaternion {
        let half = degrees.map(|d| d.to_radians() * 0.5);
        let (sx, cx) = half[0].sin_cos();
        let (sy, cy) = half[1].sin_cos();
        let (sz, cz) = half[2].sin_cos();
        Quaternion {
            x: cx * sy * sz + sx * cy * cz,
            y: cx * sy * cz - sx * cy * sz,
            z: cx * cy * sz + sx * sy * cz,
            w: cx * cy * cz - sx * sy * sz,
        }
    }

    /// A rotation of `radians` about the X axis.
    pub fn rotation_x(radians: f32) -> Quaternion {
        let (s, c) = (radians * 0.5).sin_cos();
        Quaternion::new(s, 0.0, 0.0, c)
    }

    /// A rotation of `radians` about the Y axis.
    pub fn rotation_y(radians: f32) -> Quaternion {
        let (s, c) = (radians * 0.5).sin_cos();
        Quaternion::new(0.0, s, 0.0, c)
    }

    /// A rotation of `radians` about the Z axis.
    pub fn rotation_z(radians: f32) -> Quaternion {
        let (s, c) = (radians * 0.5).sin_cos();
        Quaternion::new(0.0, 0.0, s, c)
    }

    /// The Hamilton product `self * rhs`.
    #[must_use]
    pub fn multiply(self, rhs: Quaternion) -> Quaternion {
        let (a, b) = (self, rhs);
        Quaternion {
            x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
            z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
            w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
        }
    }

    /// The rotation matrix (column vectors: `v' = M v`).
    pub fn to_rotation_matrix(self) -> [[f32; 3]; 3] {
        let Quaternion { x, y, z, w } = self;
        [
            [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
            [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
            [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
        ]
    }
}

impl std::ops::Mul for Quaternion {
    type Output = Quaternion;

    /// The Hamilton product, as `AZ::Quaternion::operator*`.
    fn mul(self, rhs: Quaternion) -> Quaternion {
        self.multiply(rhs)
    }
}

impl From<[f32; 4]> for Quaternion {
    fn from([x, y, z, w]: [f32; 4]) -> Self {
        Quaternion { x, y, z, w }
    }
}

impl Native for Quaternion {
    const NAME: &'static str = "$serde_o3de::Native::Quaternion";
    const WHAT: &'static str = "a quaternion";

    fn load(&mut self, input: &Input<'_>) -> Loaded {
        match input {
            Input::Other(Json::Obj(members)) if members.is_empty() => {
                *self = Quaternion::IDENTITY;
                Loaded::new(Outcome::DefaultsUsed, "Using identity quaternion for empty object")
            }
            Input::Other(Json::Obj(members)) => {
                let mut degrees = [0.0f32; 3];
                for (i, (_, value)) in members.iter().take(3).enumerate() {
                    match float_element(&value.tok(), degrees[i]) {
                        Ok((v, _)) => degrees[i] = v,
                        Err(mut failure) => {
                            failure.message = format!("{}: {}", ["yaw", "pitch", "roll"][i], failure.message);
                            return failure;
                        }
                    }
                }
                *self = Quaternion::from_euler_degrees(degrees);
                Loaded::new(Outcome::Success, "Quaternion loaded from Euler angles in degrees")
            }
            Input::Array(items) => {
                let mut values = self.to_array();
                let loaded = load_array(&mut values, items, "a quaternion");
                *self = values.into();
                loaded
            }
            Input::Other(other) => Loaded::new(
                Outcome::Unsupported,
                format!("a quaternion can only be read from an array or an object, not {}", other.kind()),
            ),
        }
    }
}

super::native_deserialize!(Quaternion);

impl Serialize for Quaternion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_newtype_struct(<Quaternion as Native>::NAME, &self.to_array())
    }
}

/// Loads the object form of a matrix: `roll`/`Roll`, `pitch`/`Pitch`, `yaw`/`Yaw` in degrees
/// (rotation `rotX(roll) * rotY(pitch) * rotZ(yaw)`), a uniform `scale`/`Scale` (not zero) and,
/// with `translation`, `x`/`X`, `y`/`Y`, `z`/`Z`. Returns the 3x3 part, the translation and the
/// result (DefaultsUsed when the matrix is the identity).
/// The rotation/scale part, the translation and the result of a matrix object.
type MatrixParts = ([[f32; 3]; 3], [f32; 3], ResultCode);

fn load_matrix_object(object: &Json, translation: bool) -> Result<MatrixParts, Loaded> {
    let mut result = ResultCode::UNSET;
    let mut scale = 1.0f32;
    load_member(&mut scale, object, &["scale", "Scale"], &mut result)?;
    if scale.abs() <= f32::EPSILON {
        return Err(Loaded::new(Outcome::Unsupported, "Scale can not be zero."));
    }
    let mut degrees = [0.0f32; 3];
    for (i, names) in [["roll", "Roll"], ["pitch", "Pitch"], ["yaw", "Yaw"]].iter().enumerate() {
        load_member(&mut degrees[i], object, names, &mut result)?;
    }
    let rotation = Quaternion::rotation_x(degrees[0].to_radians())
        * Quaternion::rotation_y(degrees[1].to_radians())
        * Quaternion::rotation_z(degrees[2].to_radians());
    let mut m = rotation.to_rotation_matrix();
    for row in &mut m {
        for v in row {
            *v *= scale;
        }
    }
    let mut t = [0.0f32; 3];
    if translation {
        for (i, names) in [["x", "X"], ["y", "Y"], ["z", "Z"]].iter().enumerate() {
            load_member(&mut t[i], object, names, &mut result)?;
        }
    }
    Ok((m, t, result))
}

macro_rules! matrix {
    ($(#[$doc:meta])* $name:ident, $rows:literal, $cols:literal, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq)]
        pub struct $name(pub [[f32; $cols]; $rows]);

        impl Default for $name {
            fn default() -> Self {
                $name::IDENTITY
            }
        }

        impl $name {
            /// The identity matrix.
            pub const IDENTITY: $name = {
                let mut m = [[0.0f32; $cols]; $rows];
                let mut i = 0;
                let n = if $rows < $cols { $rows } else { $cols };
                while i < n {
                    m[i][i] = 1.0;
                    i += 1;
                }
                $name(m)
            };

            /// The elements in row-major order, as O3DE writes them.
            pub fn to_row_major(&self) -> [f32; $rows * $cols] {
                let mut out = [0.0; $rows * $cols];
                for (i, v) in self.0.iter().flatten().enumerate() {
                    out[i] = *v;
                }
                out
            }

            /// A matrix from its elements in row-major order.
            pub fn from_row_major(values: [f32; $rows * $cols]) -> Self {
                let mut m = [[0.0; $cols]; $rows];
                for (i, v) in values.into_iter().enumerate() {
                    m[i / $cols][i % $cols] = v;
                }
                $name(m)
            }
        }

        impl Native for $name {
            const NAME: &'static str = concat!("$serde_o3de::Native::", stringify!($name));
            const WHAT: &'static str = $what;

            fn load(&mut self, input: &Input<'_>) -> Loaded {
                match input {
                    Input::Array(items) => {
                        let mut values = self.to_row_major();
                        let loaded = load_array(&mut values, items, $what);
                        *self = $name::from_row_major(values);
                        loaded
                    }
                    Input::Other(Json::Obj(members)) if members.is_empty() => {
                        *self = $name::IDENTITY;
                        Loaded::new(Outcome::DefaultsUsed, "Matrix value set to identity matrix.")
                    }
                    Input::Other(object @ Json::Obj(_)) => {
                        // O3DE resets the matrix to the identity before reading the object form.
                        *self = $name::IDENTITY;
                        match load_matrix_object(object, $cols == 4) {
                            Err(failure) => failure,
                            Ok((rotation, translation, result)) => {
                                let mut m = $name::IDENTITY.0;
                                for r in 0..3 {
                                    m[r][..3].copy_from_slice(&rotation[r]);
                                    if $cols == 4 {
                                        m[r][$cols - 1] = translation[r];
                                    }
                                }
                                if m == $name::IDENTITY.0 {
                                    Loaded::new(Outcome::DefaultsUsed, "Using identity matrix for empty object.")
                                } else {
                                    *self = $name(m);
                                    Loaded::with(result, "Successfully read math matrix.")
                                }
                            }
                        }
                    }
                    Input::Other(other) => Loaded::new(
                        Outcome::Unsupported,
                        format!("{} can only be read from an array or an object, not {}", $what, other.kind()),
                    ),
                }
            }
        }

        super::native_deserialize!($name);

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_newtype_struct(<$name as Native>::NAME, &self.to_row_major())
            }
        }
    };
}

matrix!(
    /// `AZ::Matrix3x3`, rows of columns: written as 9 floats in row-major order. Read from such
    /// an array or from an object with `roll`, `pitch`, `yaw` (degrees) and a uniform `scale`.
    Matrix3x3, 3, 3, "a Matrix3x3"
);
matrix!(
    /// `AZ::Matrix3x4` (rotation/scale plus a translation column): 12 floats in row-major order,
    /// or an object with `roll`, `pitch`, `yaw`, `scale` and `x`, `y`, `z`.
    Matrix3x4, 3, 4, "a Matrix3x4"
);
matrix!(
    /// `AZ::Matrix4x4`: 16 floats in row-major order, or the object form of [`Matrix3x4`].
    Matrix4x4, 4, 4, "a Matrix4x4"
);

/// `AZ::Transform`: `{"Translation": Vector3, "Rotation": Quaternion, "Scale": float}` (exact,
/// case-sensitive names; a missing member keeps its value). The default is the identity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    /// The translation.
    pub translation: Vector3,
    /// The rotation.
    pub rotation: Quaternion,
    /// The uniform scale.
    pub scale: f32,
}

impl Default for Transform {
    fn default() -> Self {
        Transform::IDENTITY
    }
}

impl Transform {
    /// The identity transform.
    pub const IDENTITY: Transform =
        Transform { translation: Vector3 { x: 0.0, y: 0.0, z: 0.0 }, rotation: Quaternion::IDENTITY, scale: 1.0 };
}

impl Native for Transform {
    const NAME: &'static str = "$serde_o3de::Native::Transform";
    const WHAT: &'static str = "a transform";

    fn load(&mut self, input: &Input<'_>) -> Loaded {
        let object = match input {
            Input::Other(Json::Obj(members)) if members.is_empty() => {
                *self = Transform::IDENTITY;
                return Loaded::new(Outcome::DefaultsUsed, "Identity transform used for an explicit default");
            }
            Input::Other(object @ Json::Obj(_)) => object,
            Input::Other(other) => {
                return Loaded::new(
                    Outcome::Unsupported,
                    format!("a transform can only be read from an object, not {}", other.kind()),
                );
            }
            Input::Array(_) => return Loaded::new(Outcome::Unsupported, "a transform can only be read from an object"),
        };
        let mut next = *self;
        let mut result = ResultCode::UNSET;
        let member = |name: &str| object.member(name).map(|j| super::Captured::Json(j.clone()));
        let mut step = |loaded: Option<Loaded>, name: &str| -> Result<(), Loaded> {
            match loaded {
                None => {
                    result.combine_with(ResultCode::new(Task::ReadField, Outcome::DefaultsUsed));
                    Ok(())
                }
                Some(l) if l.failed() => Err(Loaded::with(l.result, format!("\"{name}\": {}", l.message))),
                Some(l) => {
                    result.combine_with(l.result);
                    Ok(())
                }
            }
        };
        let translation = member("Translation").map(|c| next.translation.load(&c.input()));
        if let Err(failure) = step(translation, "Translation") {
            return failure;
        }
        let rotation = member("Rotation").map(|c| next.rotation.load(&c.input()));
        if let Err(failure) = step(rotation, "Rotation") {
            return failure;
        }
        let scale = object.member("Scale").map(|j| match float_element(&j.tok(), next.scale) {
            Ok((v, o)) => {
                next.scale = v;
                Loaded::new(o, "scale loaded")
            }
            Err(failure) => failure,
        });
        if let Err(failure) = step(scale, "Scale") {
            return failure;
        }
        *self = next;
        Loaded::with(result, "Transform loaded")
    }
}

super::native_deserialize!(Transform);

impl Serialize for Transform {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        struct Members<'a>(&'a Transform);
        impl Serialize for Members<'_> {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                let mut s = serializer.serialize_struct("Transform", 3)?;
                s.serialize_field("Translation", &self.0.translation)?;
                s.serialize_field("Rotation", &self.0.rotation)?;
                s.serialize_field("Scale", &self.0.scale)?;
                s.end()
            }
        }
        serializer.serialize_newtype_struct(<Transform as Native>::NAME, &Members(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: [f32; 4], b: [f32; 4]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn euler_degrees_match_the_axis_rotations() {
        let q = Quaternion::from_euler_degrees([90.0, 0.0, 0.0]);
        assert!(close(q.to_array(), Quaternion::rotation_x(std::f32::consts::FRAC_PI_2).to_array()));
        let q = Quaternion::from_euler_degrees([10.0, 20.0, 30.0]);
        let composed = Quaternion::rotation_x(10f32.to_radians())
            * Quaternion::rotation_y(20f32.to_radians())
            * Quaternion::rotation_z(30f32.to_radians());
        assert!(close(q.to_array(), composed.to_array()));
    }

    #[test]
    fn identity_matrices() {
        assert_eq!(Matrix3x4::IDENTITY.to_row_major(), [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        assert_eq!(Matrix4x4::from_row_major(Matrix4x4::IDENTITY.to_row_major()), Matrix4x4::IDENTITY);
    }
}
