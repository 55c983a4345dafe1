//! Links `libvss_pkcs11.so` with `-z nodelete`: the crypto libraries inside it register
//! thread-exit destructors (thread-local state), and an application that `dlclose`s the
//! module and then ends a thread would call into unmapped code. With `nodelete` the module
//! stays mapped after `dlclose`, as OpenSSL's engines and p11-kit expect of a module.

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    }
}
