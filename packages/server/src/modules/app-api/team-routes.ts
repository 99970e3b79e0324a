// /app/api for the team: its members and invites (owners and admins invite and remove), and the open
// invite links (`auth: "none"`: the link is the credential).
import type { AppContext } from "../../context.ts";
import type { App } from "../../platform/http/types.ts";
import { inviteLink, requestLinkBase } from "../../platform/public-url.ts";
import {
  acceptInvite,
  CLASH_NOTICE,
  createInvite,
  describeInvite,
  inviteView,
  removeMember,
  revokeInvite,
  teamOf,
} from "../accounts/team.ts";
import { unassignUser } from "../conversations/inbox-repo.ts";
import { brandedSession } from "./brand-routes.ts";
import { AcceptedInviteJson, CreatedInviteJson, InviteLinkJson, NoContent, TeamJson } from "./responses.ts";
import { AcceptInviteBody, InviteBody, InviteParams, InviteTokenParams, MemberParams } from "./schemas.ts";
import { clientAddress, OPEN, sessionOf, setSessionCookie } from "./session.ts";

const TAGS = ["app"];

export function teamRoutes(app: App, ctx: AppContext): void {
  app.get(
    "/team",
    { schema: { operationId: "appGetTeam", response: { 200: TeamJson }, tags: TAGS } },
    async (request) => teamOf(ctx, sessionOf(request).account.id),
  );

  app.post(
    "/team/invites",
    {
      schema: {
        operationId: "appCreateInvite",
        response: { 201: CreatedInviteJson },
        tags: TAGS,
        body: InviteBody,
      },
    },
    async (request, reply) => {
      const linkBase = requestLinkBase(ctx.config, request);
      const { invite, token } = await createInvite(ctx, sessionOf(request), request.body, linkBase);
      return reply.code(201).send({ invite: inviteView(invite), url: inviteLink(linkBase, token) });
    },
  );

  app.delete(
    "/team/invites/:inviteId",
    {
      schema: {
        operationId: "appRevokeInvite",
        response: { 204: NoContent },
        tags: TAGS,
        params: InviteParams,
      },
    },
    async (request, reply) => {
      await revokeInvite(ctx, sessionOf(request), request.params.inviteId);
      return reply.code(204).send();
    },
  );

  app.delete(
    "/team/members/:userId",
    {
      schema: {
        operationId: "appRemoveMember",
        response: { 204: NoContent },
        tags: TAGS,
        params: MemberParams,
      },
    },
    async (request, reply) => {
      const info = sessionOf(request);
      const { userId } = request.params;
      await removeMember(ctx, info, userId, (trx) => unassignUser(trx, info.account.id, userId));
      return reply.code(204).send();
    },
  );

  app.get(
    "/invites/:token",
    {
      config: OPEN,
      schema: {
        operationId: "appGetInvite",
        response: { 200: InviteLinkJson },
        tags: TAGS,
        params: InviteTokenParams,
      },
    },
    async (request) => describeInvite(ctx, request.params.token),
  );

  app.post(
    "/invites/:token/accept",
    {
      config: OPEN,
      schema: {
        operationId: "appAcceptInvite",
        response: { 200: AcceptedInviteJson, 201: AcceptedInviteJson },
        tags: TAGS,
        params: InviteTokenParams,
        body: AcceptInviteBody,
      },
    },
    async (request, reply) => {
      const { token, info, joined } = await acceptInvite(ctx, request.params.token, {
        ...request.body,
        address: clientAddress(ctx, request),
      });
      setSessionCookie(reply, token, info.session.expires_at);
      // Not joined: the address signs in elsewhere and its password proved it is theirs (their own
      // session, with the reason); the inviter's side never learns it.
      if (!joined) {
        return reply.code(200).send({ ...(await brandedSession(ctx, info)), notice: CLASH_NOTICE });
      }
      return reply.code(201).send(await brandedSession(ctx, info));
    },
  );
}
