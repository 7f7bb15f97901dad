//! `gamefmt`: one command line over serde-gamefmt's formats.

fn main() {
    println!("gamefmt: under construction");
}
