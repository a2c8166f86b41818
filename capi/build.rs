//! Gives the shared library a soname on Linux. rustc sets none, so a program linked through
//! a symlink or by full path (CMake links imported libraries by full path) would record that
//! name or path instead of the library's own. The soname is the file name cargo writes,
//! `libtld4_capi.so`, so programs linked against `target/release/libtld4_capi.so` find it
//! under that name, and `capi/install.sh` installs the file under it with `libtld4.so` as
//! the link-time name (a symlink, as `libfoo.so -> libfoo.so.1` in a distribution).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libtld4_capi.so");
    }
}
