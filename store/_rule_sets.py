"""Rule sets: the rules a judging applied, stored once per content hash and immutable by
name@version (changed rules need a new version, so a stored judgment's rules never move)."""

from __future__ import annotations

from rejudge.store._errors import ConflictError
from rejudge.store._tables import _T_RULES, utcnow
from rejudge.store._unit_of_work import Repository
from sqlalchemy import select

from rejudge.model import RuleSet

__all__: list[str] = []


class RuleSetRepository(Repository):
    """``store.rule_sets``: save and read rule sets."""

    def save_rule_set(self, rule_set: RuleSet, *, builtin: bool = False) -> int:
        """Store a rule set (idempotent by hash); a name@version reused for other content is refused."""
        digest = rule_set.hash
        with self._begin() as c:
            same_ref = c.execute(
                select(_T_RULES.c.id, _T_RULES.c.hash).where(
                    _T_RULES.c.name == rule_set.name, _T_RULES.c.version == rule_set.version
                )
            ).first()
            if same_ref is not None:
                if same_ref.hash != digest:
                    raise ConflictError(
                        f"rule set {rule_set.ref} is already stored with different content; "
                        "rule sets are immutable, give the changed rules a new version"
                    )
                return int(same_ref.id)
            c.execute(
                self._insert_ignore(_T_RULES, ["hash"]),
                [
                    {
                        "name": rule_set.name,
                        "version": rule_set.version,
                        "hash": digest,
                        "builtin": builtin,
                        "body": rule_set.model_dump(mode="json"),
                        "created_at": utcnow(),
                    }
                ],
            )
            return int(
                c.execute(select(_T_RULES.c.id).where(_T_RULES.c.hash == digest)).scalar_one()
            )

    def get_rule_set(self, rule_set_id: int) -> RuleSet:
        where = _T_RULES.c.id == rule_set_id
        body = self._body_where(_T_RULES, where, f"no rule set with id {rule_set_id}")
        return RuleSet.model_validate(body)
