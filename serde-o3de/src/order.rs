//! O3DE's order of JSON values, a leaf that the store (sorting unordered containers and maps) and
//! the public [`compare`](crate::compare) share.

use std::cmp::Ordering;

use serde_json::Value;

/// O3DE's order of JSON values (`JsonSerialization::Compare`), used to sort unordered containers
/// on store: by type first (null < false < true < object < array < string < number), then numbers
/// by value, strings by bytes, arrays by length and then element by element, objects by member
/// count and then member by member in name order.
pub fn compare(a: &Value, b: &Value) -> Ordering {
    fn rank(v: &Value) -> u8 {
        match v {
            Value::Null => 0,
            Value::Bool(false) => 1,
            Value::Bool(true) => 2,
            Value::Object(_) => 3,
            Value::Array(_) => 4,
            Value::String(_) => 5,
            Value::Number(_) => 6,
        }
    }
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.partial_cmp(&y).unwrap_or(Ordering::Equal)
        }
        (Value::String(x), Value::String(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Value::Array(x), Value::Array(y)) => x
            .len()
            .cmp(&y.len())
            .then_with(|| x.iter().zip(y).map(|(p, q)| compare(p, q)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)),
        (Value::Object(x), Value::Object(y)) => x.len().cmp(&y.len()).then_with(|| {
            let mut xs: Vec<_> = x.iter().collect();
            let mut ys: Vec<_> = y.iter().collect();
            xs.sort_by(|p, q| p.0.cmp(q.0));
            ys.sort_by(|p, q| p.0.cmp(q.0));
            xs.iter()
                .zip(&ys)
                .map(|(p, q)| p.0.as_bytes().cmp(q.0.as_bytes()).then_with(|| compare(p.1, q.1)))
                .find(|o| o.is_ne())
                .unwrap_or(Ordering::Equal)
        }),
        _ => rank(a).cmp(&rank(b)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ordering_by_type_then_value() {
        let order = [
            json!(null),
            json!(false),
            json!(true),
            json!({}),
            json!({"a": 1}),
            json!({"a": 2}),
            json!({"a": 1, "b": 1}),
            json!([]),
            json!([5]),
            json!([1, 2]),
            json!(""),
            json!("a"),
            json!("b"),
            json!(-1.5),
            json!(0),
            json!(2),
        ];
        for w in order.windows(2) {
            assert_eq!(compare(&w[0], &w[1]), Ordering::Less, "{} < {}", w[0], w[1]);
        }
    }
}
