//! Who may do what to which experiment: levels, path rules, explicit grants, and the checks
//! every route goes through.
