//! Several stores, one slot each (`VSS_PKCS11_CONF`): each slot's token is its own store, with
//! its own login, keys and objects; a handle from one slot means nothing in another; a list
//! that cannot be used fails `C_Initialize`.

mod common;

use common::{rv, with_conf, Store, PIN};
use cryptoki::context::{CInitializeArgs, CInitializeFlags, Pkcs11};
use cryptoki::error::RvError;
use cryptoki::mechanism::Mechanism;
use cryptoki::object::{Attribute, ObjectClass};
use cryptoki::session::UserType;
use cryptoki::types::AuthPin;

#[test]
fn each_listed_store_is_a_slot_with_its_own_login_keys_and_objects() {
    let (a, b) = (Store::new(), Store::new());
    let conf = a.scratch().join("stores.conf");
    std::fs::write(
        &conf,
        format!(
            "# two stores\n{}\n\n{}\n",
            a.path().display(),
            b.path().display()
        ),
    )
    .expect("conf");
    with_conf(&conf, |module| {
        let slots = module.get_slots_with_token().expect("slots");
        assert_eq!(slots.len(), 2);
        let serial = |i: usize| {
            module
                .get_token_info(slots[i])
                .expect("info")
                .serial_number()
                .to_owned()
        };
        assert_ne!(serial(0), serial(1));
        let on_a = module.open_rw_session(slots[0]).expect("session a");
        let on_b = module.open_rw_session(slots[1]).expect("session b");
        on_b.login(UserType::User, Some(&AuthPin::from(PIN)))
            .expect("login b");
        // Logged in on b only: a shows no keys and cannot make one.
        assert_eq!(
            rv(on_a.generate_key_pair(
                &Mechanism::EccKeyPairGen,
                &[Attribute::EcParams(vec![
                    0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07
                ])],
                &[]
            )),
            RvError::UserNotLoggedIn
        );
        let (_, private) = on_b
            .generate_key_pair(
                &Mechanism::EccKeyPairGen,
                &[
                    Attribute::EcParams(vec![
                        0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07,
                    ]),
                    Attribute::Label(b"only-b".to_vec()),
                ],
                &[],
            )
            .expect("keygen on b");
        assert!(a.labels().is_empty());
        assert_eq!(b.labels(), ["only-b"]);
        // b's key handle means nothing in a session of a, even once a is logged in.
        on_a.login(UserType::User, Some(&AuthPin::from(PIN)))
            .expect("login a");
        assert!(on_a
            .find_objects(&[Attribute::Class(ObjectClass::PRIVATE_KEY)])
            .expect("find")
            .is_empty());
        assert_eq!(
            rv(on_a.sign(&Mechanism::Ecdsa, private, &[0u8; 32])),
            RvError::KeyHandleInvalid
        );
        assert!(on_a
            .get_attributes(private, &[cryptoki::object::AttributeType::Label])
            .is_err());
        assert_eq!(
            on_b.sign(&Mechanism::Ecdsa, private, &[0u8; 32])
                .expect("sign")
                .len(),
            64
        );
        // Closing a's last session logs a out, and b stays logged in.
        drop(on_a);
        assert_eq!(
            on_b.sign(&Mechanism::Ecdsa, private, &[1u8; 32])
                .expect("sign")
                .len(),
            64
        );
    });
}

#[test]
fn an_unusable_list_of_stores_fails_initialisation() {
    let store = Store::new();
    let conf = store.scratch().join("empty.conf");
    std::fs::write(&conf, "# nothing listed\n").expect("conf");
    let _serial = common::serial();
    std::env::remove_var("VSS_STORE");
    for path in [
        conf.clone(),
        store.scratch().join("missing.conf"),
        "/dev/zero".into(),
    ] {
        std::env::set_var("VSS_PKCS11_CONF", &path);
        let module = Pkcs11::new(common::module_path()).expect("load");
        assert_eq!(
            rv(module.initialize(CInitializeArgs::new(CInitializeFlags::OS_LOCKING_OK))),
            RvError::GeneralError,
            "{}",
            path.display()
        );
    }
    std::env::remove_var("VSS_PKCS11_CONF");
}
