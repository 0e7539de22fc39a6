//! `runlens user ...` and `runlens group ...`.

use clap::Subcommand;
use server::auth::{groups, users};
use server::Store;

use super::{format_time, message, read_password};

#[derive(clap::Args)]
pub(crate) struct UserArgs {
    #[command(subcommand)]
    command: UserCommand,
}

#[derive(Subcommand)]
enum UserCommand {
    /// Add a user. The password comes from --password-stdin or RUNLENS_PASSWORD.
    Add {
        username: String,
        /// Make the user an administrator.
        #[arg(long)]
        admin: bool,
        /// Read the password from the first line of stdin.
        #[arg(long)]
        password_stdin: bool,
        /// Create the user without a password (signs in through the SSO proxy only).
        #[arg(long, conflicts_with = "password_stdin")]
        no_password: bool,
    },
    /// List users.
    List,
    /// Set a user's password (from --password-stdin or RUNLENS_PASSWORD); ends their sessions.
    Passwd {
        username: String,
        /// Read the password from the first line of stdin.
        #[arg(long)]
        password_stdin: bool,
    },
    /// Disable a user: no sign-in, no tokens, sessions end.
    Disable { username: String },
    /// Re-enable a disabled user.
    Enable { username: String },
    /// Grant (or with --revoke remove) the administrator role.
    Admin {
        username: String,
        /// Remove the role instead.
        #[arg(long)]
        revoke: bool,
    },
}

/// Runs a `user` subcommand.
pub(crate) fn user(store: &Store, args: UserArgs) -> Result<(), String> {
    match args.command {
        UserCommand::Add {
            username,
            admin,
            password_stdin,
            no_password,
        } => {
            let password = match no_password {
                true => None,
                false => Some(read_password(password_stdin)?.ok_or(
                    "give the password with --password-stdin or RUNLENS_PASSWORD (or use --no-password)",
                )?),
            };
            store
                .blocking(|c| users::create_user(c, &username, password.as_deref(), admin))
                .map_err(message)?;
            let role = if admin { "administrator" } else { "user" };
            eprintln!("added {role} '{username}'");
        }
        UserCommand::List => print_users(store)?,
        UserCommand::Passwd {
            username,
            password_stdin,
        } => {
            let password = read_password(password_stdin)?
                .ok_or("give the password with --password-stdin or RUNLENS_PASSWORD")?;
            store
                .blocking(|c| users::set_password(c, &username, &password))
                .map_err(message)?;
            eprintln!("password of '{username}' changed; their sessions have ended");
        }
        UserCommand::Disable { username } => set_disabled(store, &username, true)?,
        UserCommand::Enable { username } => set_disabled(store, &username, false)?,
        UserCommand::Admin { username, revoke } => {
            store
                .blocking(|c| users::set_admin(c, &username, !revoke))
                .map_err(message)?;
            let what = if revoke { "is no longer" } else { "is now" };
            eprintln!("'{username}' {what} an administrator");
        }
    }
    Ok(())
}

fn set_disabled(store: &Store, username: &str, disabled: bool) -> Result<(), String> {
    store
        .blocking(|c| users::set_disabled(c, username, disabled))
        .map_err(message)?;
    let what = if disabled { "disabled" } else { "enabled" };
    eprintln!("'{username}' {what}");
    Ok(())
}

fn print_users(store: &Store) -> Result<(), String> {
    let list = store.blocking(|c| users::list_users(c)).map_err(message)?;
    println!(
        "{:<32} {:<6} {:<9} {:<9} CREATED",
        "USERNAME", "ADMIN", "DISABLED", "PASSWORD"
    );
    for u in list {
        let yn = |b: bool| if b { "yes" } else { "no" };
        println!(
            "{:<32} {:<6} {:<9} {:<9} {}",
            u.username,
            yn(u.is_admin),
            yn(u.disabled),
            if u.has_password { "set" } else { "none" },
            format_time(u.created)
        );
    }
    Ok(())
}

#[derive(clap::Args)]
pub(crate) struct GroupArgs {
    #[command(subcommand)]
    command: GroupCommand,
}

#[derive(Subcommand)]
enum GroupCommand {
    /// Add a group.
    Add { name: String },
    /// List groups and their members.
    List,
    /// Add a user to a group.
    AddMember { group: String, username: String },
    /// Remove a user from a group.
    RemoveMember { group: String, username: String },
}

/// Runs a `group` subcommand.
pub(crate) fn group(store: &Store, args: GroupArgs) -> Result<(), String> {
    match args.command {
        GroupCommand::Add { name } => {
            store
                .blocking(|c| groups::create_group(c, &name))
                .map_err(message)?;
            eprintln!("added group '{name}'");
        }
        GroupCommand::List => {
            let list = store
                .blocking(|c| groups::list_groups(c))
                .map_err(message)?;
            println!("{:<32} MEMBERS", "GROUP");
            for g in list {
                println!("{:<32} {}", g.name, g.members.join(", "));
            }
        }
        GroupCommand::AddMember { group, username } => {
            store
                .blocking(|c| groups::add_member(c, &group, &username))
                .map_err(message)?;
            eprintln!("'{username}' is now a member of '{group}'");
        }
        GroupCommand::RemoveMember { group, username } => {
            store
                .blocking(|c| groups::remove_member(c, &group, &username))
                .map_err(message)?;
            eprintln!("'{username}' is no longer a member of '{group}'");
        }
    }
    Ok(())
}
