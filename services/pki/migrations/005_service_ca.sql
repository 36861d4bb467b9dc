-- The internal service CA (EDGE_GRPC_TLS=mtls): a root of its own, apart from the chain that
-- issues identities' and routers' certificates, so that neither kind of certificate passes for
-- the other. It signs the certificates the controller's processes use between themselves.
ALTER TABLE controller_certificates DROP CONSTRAINT controller_certificates_kind_check;
ALTER TABLE controller_certificates ADD CONSTRAINT controller_certificates_kind_check
  CHECK (kind IN ('root-ca', 'intermediate-ca', 'server', 'service-ca'));
