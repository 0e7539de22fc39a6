//! MLflow-style random run names: `<adjective>-<noun>-<0..999>` (`utils/name_utils.py`).

use rand::Rng;

const ADJECTIVES: &[&str] = &[
    "able",
    "bold",
    "brave",
    "bright",
    "calm",
    "clean",
    "clever",
    "crisp",
    "dapper",
    "defiant",
    "eager",
    "end",
    "fun",
    "funny",
    "gaudy",
    "gentle",
    "glamorous",
    "gregarious",
    "honorable",
    "illustrious",
    "indecisive",
    "judicious",
    "kindly",
    "languid",
    "learned",
    "loud",
    "luminous",
    "magnificent",
    "mercurial",
    "merciful",
    "nebulous",
    "omniscient",
    "orderly",
    "peaceful",
    "polite",
    "redolent",
    "resilient",
    "rumbling",
    "secretive",
    "sedate",
    "selective",
    "serious",
    "silent",
    "skillful",
    "smiling",
    "spiffy",
    "stately",
    "suave",
    "sincere",
    "righteous",
    "thundering",
    "traveling",
    "trusting",
    "unequaled",
    "upbeat",
    "valuable",
    "vaunted",
    "victorious",
    "welcoming",
    "whimsical",
    "wise",
    "worried",
    "youthful",
    "zealous",
];

const NOUNS: &[&str] = &[
    "ant", "ape", "asp", "auk", "bass", "bat", "bear", "bee", "bird", "boar", "bug", "calf",
    "carp", "cat", "chimp", "cod", "colt", "conch", "cow", "crab", "crane", "croc", "crow", "cub",
    "deer", "doe", "dog", "dolphin", "donkey", "dove", "duck", "eel", "elk", "fawn", "finch",
    "fish", "flea", "fly", "foal", "fowl", "fox", "frog", "gnat", "gnu", "goat", "goose", "grouse",
    "grub", "gull", "hare", "hawk", "hen", "hog", "horse", "hound", "jay", "kit", "kite", "koi",
    "lamb", "lark", "loon", "lynx", "mare", "midge", "mink", "mole", "moose", "moth", "mouse",
    "mule", "newt", "owl", "ox", "panda", "penguin", "perch", "pig", "pug", "quail", "ram", "rat",
    "ray", "robin", "roo", "rook", "seal", "shad", "shark", "sheep", "shoat", "shrew", "shrike",
    "skink", "skunk", "sloth", "slug", "smelt", "snail", "snake", "snipe", "sow", "sponge",
    "squid", "squirrel", "stag", "steed", "stoat", "stork", "swan", "tern", "toad", "trout",
    "turtle", "vole", "wasp", "whale", "wolf", "worm", "wren", "yak", "zebra",
];

/// A fresh random run name such as `bold-hog-123` (at most 20 characters).
pub(crate) fn random_run_name() -> String {
    let mut rng = rand::rng();
    loop {
        let adj = ADJECTIVES[rng.random_range(0..ADJECTIVES.len())];
        let noun = NOUNS[rng.random_range(0..NOUNS.len())];
        let num: u16 = rng.random_range(0..1000);
        let name = format!("{adj}-{noun}-{num}");
        if name.len() <= 20 {
            return name;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::random_run_name;

    #[test]
    fn names_have_three_parts_and_fit() {
        for _ in 0..500 {
            let name = random_run_name();
            assert!(name.len() <= 20, "{name}");
            let parts: Vec<&str> = name.split('-').collect();
            assert_eq!(parts.len(), 3, "{name}");
            assert!(super::ADJECTIVES.contains(&parts[0]));
            assert!(super::NOUNS.contains(&parts[1]));
            assert!(parts[2].parse::<u16>().is_ok_and(|n| n < 1000));
        }
    }
}
