/**
 * gRPC handlers of controller settings: proto → controller settings → proto.
 */
import { listMeta, listParams, planList } from '@edge/zitiql';
import type { session as pb } from '@edge/proto';
import type { ControllerSetting, ControllerSettingInput, OidcSettings } from '../domain/controller-setting.js';
import { parseTags } from '../domain/session.js';
import { CONTROLLER_SETTING_FIELDS } from '../store/controller-setting.js';
import type { ControllerSettings } from '../controller-settings.js';

const list = (v: string[] | null): pb.StringList | null => (v === null ? null : { values: v });
const oidcToProto = (o: OidcSettings): pb.OidcSettings => ({ redirectUris: list(o.redirectUris), postLogoutUris: list(o.postLogoutUris) });

function toProto(s: ControllerSetting): pb.ControllerSetting {
  return { id: s.id, oidc: oidcToProto(s.oidc), tagsJson: JSON.stringify(s.tags), createdAt: s.createdAt.toISOString(), updatedAt: s.updatedAt.toISOString() };
}

/** An absent list stays null: on an override it inherits the global one. */
function inputOf(f: pb.ControllerSettingFields__Output | null): ControllerSettingInput {
  const oidc = f?.oidc;
  return {
    oidc: { redirectUris: oidc?.redirectUris?.values ?? null, postLogoutUris: oidc?.postLogoutUris?.values ?? null },
    tags: parseTags(f?.tagsJson ?? ''),
  };
}

export function createControllerSettingRpcHandlers(settings: ControllerSettings) {
  return {
    async CreateControllerSetting(req: pb.CreateControllerSettingRequest__Output): Promise<pb.ControllerSettingRef> {
      return { id: await settings.create(req.controllerId, inputOf(req.fields)) };
    },
    async GetControllerSetting(req: pb.ControllerSettingRef__Output): Promise<pb.ControllerSetting> {
      return toProto(await settings.get(req.id));
    },
    async ListControllerSettings(req: pb.ListControllerSettingsRequest__Output): Promise<pb.ListControllerSettingsResponse> {
      const plan = planList(CONTROLLER_SETTING_FIELDS, listParams(req.query));
      const { items, total } = await settings.list(plan);
      return { controllerSettings: items.map(toProto), meta: listMeta(plan, total, CONTROLLER_SETTING_FIELDS) };
    },
    async GetControllerSettingEffective(req: pb.ControllerSettingRef__Output): Promise<pb.ControllerSettingEffective> {
      const e = await settings.effective(req.id);
      return {
        id: e.id, effective: oidcToProto(e.effective), instance: e.instance && oidcToProto(e.instance),
        tagsJson: JSON.stringify(e.tags), createdAt: e.createdAt.toISOString(), updatedAt: e.updatedAt.toISOString(),
      };
    },
    async UpdateControllerSetting(req: pb.UpdateControllerSettingRequest__Output): Promise<pb.Empty> {
      await settings.update(req.id, inputOf(req.fields), req.updateMask);
      return {};
    },
    async DeleteControllerSetting(req: pb.ControllerSettingRef__Output): Promise<pb.Empty> {
      await settings.delete(req.id);
      return {};
    },
  };
}
