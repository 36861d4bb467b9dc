-- One authenticator per method and identity (controller/model/authenticator_manager.go ApplyCreate).
create unique index authenticators_identity_method_key on authenticators (identity_id, method);
