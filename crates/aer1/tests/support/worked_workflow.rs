// Each including test uses part of this module.
#![allow(dead_code)]

//! The draft's worked workflow receipt (Section 8) and the Merkle known answers published with it,
//! transcribed from the project's fact sheet (AER1.md §5). Shared by the reference's tests and the
//! CLI's tests (included with `#[path]`). Nothing here is computed: these are the expectations.

/// The five step receipt ids of the worked example, in seq order.
pub const STEP_IDS: [&str; 5] = [
    "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
    "514fe841-bbdd-4804-9ef4-6828842d8763",
    "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
    "bf88a036-416b-456a-8e82-8c0991811d68",
    "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
];

/// The steps' `receipt_hash` values, in seq order.
pub const STEP_HASHES: [&str; 5] = [
    "11c3a071051a42cbf5cf4da60a7577b1dffeb0419e6dd8a258b19c4c0d0d108e",
    "68e3bcad3f46218672fd7ef7bf32f4a7089937dda2b8ade3cfe1050cec856285",
    "3da48b2d392fb79ed78f7ed0cc8e6c122fc1089947ff6d7f829748d7745840dd",
    "0f024f209392b918909df5478aadd3a9189520d74cfdf78e2ccf51b9f075f926",
    "f52d9c03605047ad0ac347e5e9cbc0e2e197a009d8ee5c7d775f86f360eca963",
];

/// The steps' `started_at` / `ended_at`, in seq order.
pub const STEP_TIMES: [(&str, &str); 5] = [
    ("2026-09-29T10:57:40.911Z", "2026-09-29T10:57:41.147Z"),
    ("2026-09-29T10:57:42.920Z", "2026-09-29T10:57:43.069Z"),
    ("2026-09-29T10:57:45.415Z", "2026-09-29T10:57:45.564Z"),
    ("2026-09-29T10:57:48.459Z", "2026-09-29T10:57:48.605Z"),
    ("2026-09-29T10:57:55.227Z", "2026-09-29T10:57:55.434Z"),
];

pub const WORKFLOW_ID: &str = "42a3c2cf-2cdd-5b8a-aced-016e5a2fb634";
pub const RECEIPT_ID: &str = "442243d2-9c32-53f7-817e-2def28fa5b07";
pub const OUTPUT_HASH: &str = "16566e46433dd9a00e4437873102531be71fbae3872db8888b7ddc9282d90f54";
pub const VERIFY_URL: &str = "https://zambo.dev/workflow/42a3c2cf-2cdd-5b8a-aced-016e5a2fb634";

/// The root over all five ids (the worked example's `merkle_root`); also the root of the five
/// followed by the fifth again.
pub const ROOT_5: &str = "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37";
/// The root over the first three ids.
pub const ROOT_FIRST_3: &str = "4860e25bbc8dba2382887cb08ccaf6cd88434bbda5aeda45c6a8373bb15f63e4";
/// The root over the five ids reversed.
pub const ROOT_REVERSED: &str = "362530ecc354e40c5787139705ca6d85af1354a4b6af83ee9c3a16cb66b8a66c";
/// The root over the first id alone.
pub const ROOT_FIRST_1: &str = "609eb71e8855515d3d1988f17c714429b4433cfbd8a837f22182652d22ae1f51";
/// The root of no steps: SHA-256 of the empty string.
pub const ROOT_EMPTY: &str = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
/// The legacy construction's root over the worked example (leaves `"<seq>:<receipt_hash>"`),
/// which must not verify.
pub const ROOT_LEGACY: &str = "a4b2fcb4684cec481e4ece889ed15c7d9e47e58d9ba4fb02ea354c0cb2ca44c4";

/// The worked workflow receipt, in the draft's member order.
pub const WORKED_WORKFLOW: &str = r#"{
  "type": "verifiable-workflow-receipt",
  "version": "1",
  "workflow_id": "42a3c2cf-2cdd-5b8a-aced-016e5a2fb634",
  "receipt_id": "442243d2-9c32-53f7-817e-2def28fa5b07",
  "session_id": "receipt-test-001",
  "goal": "get BTC price",
  "status": "ok",
  "steps": [
    {"seq": 1, "tool": "zambo_universal", "receipt_id": "e80168eb-a6a1-4ec9-8478-ac108f9397ff",
     "receipt_hash": "11c3a071051a42cbf5cf4da60a7577b1dffeb0419e6dd8a258b19c4c0d0d108e",
     "started_at": "2026-09-29T10:57:40.911Z", "ended_at": "2026-09-29T10:57:41.147Z", "status": "ok"},
    {"seq": 2, "tool": "zambo_universal", "receipt_id": "514fe841-bbdd-4804-9ef4-6828842d8763",
     "receipt_hash": "68e3bcad3f46218672fd7ef7bf32f4a7089937dda2b8ade3cfe1050cec856285",
     "started_at": "2026-09-29T10:57:42.920Z", "ended_at": "2026-09-29T10:57:43.069Z", "status": "ok"},
    {"seq": 3, "tool": "zambo_universal", "receipt_id": "a090bdad-f2cf-48c9-bc89-e9e17700fb15",
     "receipt_hash": "3da48b2d392fb79ed78f7ed0cc8e6c122fc1089947ff6d7f829748d7745840dd",
     "started_at": "2026-09-29T10:57:45.415Z", "ended_at": "2026-09-29T10:57:45.564Z", "status": "ok"},
    {"seq": 4, "tool": "zambo_universal", "receipt_id": "bf88a036-416b-456a-8e82-8c0991811d68",
     "receipt_hash": "0f024f209392b918909df5478aadd3a9189520d74cfdf78e2ccf51b9f075f926",
     "started_at": "2026-09-29T10:57:48.459Z", "ended_at": "2026-09-29T10:57:48.605Z", "status": "ok"},
    {"seq": 5, "tool": "zambo_universal", "receipt_id": "ae795bf0-27f8-4cf2-8aef-3f8142b77217",
     "receipt_hash": "f52d9c03605047ad0ac347e5e9cbc0e2e197a009d8ee5c7d775f86f360eca963",
     "started_at": "2026-09-29T10:57:55.227Z", "ended_at": "2026-09-29T10:57:55.434Z", "status": "ok"}
  ],
  "merkle_root": "7c4817ca249edfeae259b98abf63ed38a31d9dbeebf5ee23139410a7a7f63b37",
  "output_hash": "16566e46433dd9a00e4437873102531be71fbae3872db8888b7ddc9282d90f54",
  "verify_url": "https://zambo.dev/workflow/42a3c2cf-2cdd-5b8a-aced-016e5a2fb634"
}
"#;
