-- A signer's kid and certificate each name one signer (controller/db/external_jwt_signer_store.go).
create unique index external_jwt_signers_kid_key on external_jwt_signers (kid) where kid is not null;
create unique index external_jwt_signers_fingerprint_key on external_jwt_signers (fingerprint) where fingerprint is not null;
