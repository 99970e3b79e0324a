import { ActionIcon, Alert, Badge, Button, Group, Select, Table, Text, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useState } from "react";
import { CopyableCode } from "../../components/CopyableCode.tsx";
import { ACTIONS_COLUMN, DataTable } from "../../components/DataTable.tsx";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { Section } from "../../components/Section.tsx";
import { errorMessage } from "../../lib/api.ts";
import type { Role, Session } from "../../lib/api-types.ts";
import { fullTime } from "../../lib/format.ts";
import { useInviteTeammate, useRemoveTeammate, useRevokeInvite, useTeam } from "../../lib/queries/team.ts";

/** Members, pending invites, and a new invite link (shown once, valid 7 days). */
export function TeamSection({ session }: { session: Session }) {
  const team = useTeam();
  const inviteForm = useForm<{ email: string; role: Role }>({ initialValues: { email: "", role: "agent" } });
  const [link, setLink] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState<string | null>(null);

  const invite = useInviteTeammate();
  const revoke = useRevokeInvite();
  const remove = useRemoveTeammate();

  return (
    <Section
      title="Team"
      description="Owners and admins manage settings and the team; agents work in the inbox."
    >
      <QueryStatus query={team} loadingLabel="Loading the team" />
      {team.data && (
        <Table.ScrollContainer minWidth={480}>
          <DataTable
            verticalSpacing="xs"
            aria-label="Team members"
            columns={["Name", "Email", "Role", ACTIONS_COLUMN]}
            rows={[...team.data.members, ...team.data.invites]}
            rowKey={(row) => row.id}
            cells={(row) => {
              // The team's members first, then the invites not accepted yet.
              if ("expiresAt" in row) {
                const i = row;
                return (
                  <>
                    <Table.Td>
                      <Text size="sm" c="dimmed">
                        Invited
                      </Text>
                    </Table.Td>
                    <Table.Td>{i.email}</Table.Td>
                    <Table.Td>
                      <Badge variant="outline" color="gray">
                        {i.role}
                      </Badge>
                    </Table.Td>
                    <Table.Td>
                      <Group gap={4} wrap="nowrap">
                        <Text size="xs" c="dimmed">
                          until {fullTime(i.expiresAt)}
                        </Text>
                        <ActionIcon
                          size="sm"
                          variant="subtle"
                          color="red"
                          aria-label={`Revoke the invite for ${i.email}`}
                          onClick={() => revoke.mutate(i.id)}
                        >
                          ×
                        </ActionIcon>
                      </Group>
                    </Table.Td>
                  </>
                );
              }
              const m = row;
              return (
                <>
                  <Table.Td>{m.name ?? "—"}</Table.Td>
                  <Table.Td>{m.email}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={m.role === "owner" ? "blue" : "gray"}>
                      {m.role}
                    </Badge>
                  </Table.Td>
                  <Table.Td>
                    {m.role !== "owner" &&
                      m.id !== session.user.id &&
                      (confirmRemove === m.id ? (
                        <Group gap={4} wrap="nowrap">
                          <Button
                            size="compact-xs"
                            color="red"
                            loading={remove.isPending}
                            onClick={() => remove.mutate(m.id, { onSuccess: () => setConfirmRemove(null) })}
                          >
                            Remove {m.email}
                          </Button>
                          <Button size="compact-xs" variant="default" onClick={() => setConfirmRemove(null)}>
                            Keep
                          </Button>
                        </Group>
                      ) : (
                        <Button
                          size="compact-xs"
                          variant="subtle"
                          color="red"
                          onClick={() => setConfirmRemove(m.id)}
                        >
                          Remove…
                        </Button>
                      ))}
                  </Table.Td>
                </>
              );
            }}
          />
        </Table.ScrollContainer>
      )}
      <form
        onSubmit={inviteForm.onSubmit(({ email, role }) => {
          setLink(null);
          invite.mutate(
            { email: email.trim(), role },
            {
              onSuccess: (res) => {
                setLink(res.url);
                inviteForm.setFieldValue("email", "");
              },
            },
          );
        })}
        noValidate
      >
        <Group align="flex-start" gap="xs" wrap="wrap">
          <TextInput
            label="Invite by email"
            type="email"
            placeholder="teammate@example.com"
            style={{ flex: 1, minWidth: 220 }}
            {...inviteForm.getInputProps("email")}
            error={invite.isError ? errorMessage(invite.error) : undefined}
          />
          <Select
            label="Role"
            data={[
              { value: "agent", label: "Agent" },
              { value: "admin", label: "Admin" },
            ]}
            {...inviteForm.getInputProps("role")}
            allowDeselect={false}
            w={130}
          />
          <Button type="submit" mt={25} loading={invite.isPending}>
            Create invite link
          </Button>
        </Group>
      </form>
      {link && (
        <Alert color="green" title="Invite link" role="status">
          <Text size="sm" mb="xs">
            Send this link to your teammate. It is shown only once and works for 7 days.
          </Text>
          <CopyableCode value={link} copyLabel="Copy link" testId="invite-link" />
        </Alert>
      )}
    </Section>
  );
}
