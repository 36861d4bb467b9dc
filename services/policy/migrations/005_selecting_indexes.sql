-- The policies that select one identity or service are found through indexes on every branch
-- of the match (#all, @id, attributes), not by reading every policy: session creation and a
-- client's service list ask this on every request.
CREATE INDEX service_policies_identity_all ON service_policies (id) WHERE identity_all;
CREATE INDEX edge_router_policies_identity_all ON edge_router_policies (id) WHERE identity_all;
CREATE INDEX edge_router_policies_identity_ids ON edge_router_policies USING gin (identity_ids);
CREATE INDEX service_edge_router_policies_service_all ON service_edge_router_policies (id) WHERE service_all;
CREATE INDEX service_edge_router_policies_service_ids ON service_edge_router_policies USING gin (service_ids);
