// Phrases that address an AI agent or its reviewer instead of a human reader: orders to drop its
// instructions, new identities, secrecy from the user, role markers. Shared by the skills scanner and
// the smart-approval judge. Match against normaliseForMatching(text) (sdk/text-normalise.ts).

export interface InjectionPattern {
  id: string
  severity: 'caution' | 'dangerous'
  message: string
  /** Case-insensitive, not global: use `new RegExp(p.pattern.source, 'gi')` to replace. */
  pattern: RegExp
}

const re = (source: string) => new RegExp(source, 'i')

// "don't forget to …", "never ignore the …" are ordinary advice, not an order to drop anything.
const NOT_NEGATED = String.raw`(?<!\b(?:do\s+not|don'?t|never|not|must\s+not|mustn'?t|cannot|can'?t)\s+)`
/** Verbs that tell the reader to stop applying something. */
const DROP = String.raw`${NOT_NEGATED}\b(?:ignore|disregard|forget|override|overrule|bypass|abandon|discard|dismiss|neglect|ditch|scrap|supersede|(?:set|put|push|cast|lay|leave)\s+aside|(?:stop|quit|cease)\s+(?:following|obeying|applying|honou?ring)|(?:do\s+not|don'?t|no\s+longer)\s+(?:follow|obey|heed)|pay\s+no\s+(?:attention|heed)\s+to|throw\s+(?:out|away)|let\s+go\s+of|(?:are|is)\s+no\s+longer\s+bound\s+by)\b`
/** What is dropped: the agent's instructions in their many names. */
const RULES = String.raw`(?:instructions?|guidance|guidelines?|rules|directions|directives|prompts?|constraints|policies|restrictions|programming|guardrails|safeguards|orders|commands|training|limitations|boundaries|context)\b`
/** Words that point at what the agent was told before (not at rules of some tool or file). */
const EARLIER = String.raw`(?:previous|prior|earlier|above|preceding|foregoing|original|initial|all(?:\s+of)?(?:\s+(?:the|your|my))?|your|system|safety|developer|operator)`
/** "… the guidance you were given", "… the rules above". */
const GIVEN = String.raw`(?:you(?:'ve|\s+have|\s+were|\s+had)?\s+(?:been\s+)?(?:given|told|received|provided)|(?:that\s+)?(?:were\s+)?given\s+to\s+you|you\s+(?:received|got|follow)|from\s+(?:the|your)\s+(?:user|developer|system|operator|creator)s?|above|so\s+far|until\s+now|up\s+to\s+now|before\s+this)\b`
const WORDS = (max: number) => String.raw`(?:\s+[^\s.!?;:]+){0,${max}}?`

export const INJECTION_PATTERNS: readonly InjectionPattern[] = [
  {
    id: 'injection-override',
    severity: 'dangerous',
    message: 'tells the agent to drop its instructions',
    pattern: re(String.raw`${DROP}${WORDS(4)}\s+${EARLIER}${WORDS(2)}\s+${RULES}|${DROP}${WORDS(4)}\s+${RULES}${WORDS(1)}\s+${GIVEN}|${DROP}\s+(?:all\s+(?:of\s+)?|everything\s+|anything\s+)?(?:the\s+)?(?:(?:text|content|messages?)\s+)?(?:above|before\s+this)\b|${DROP}${WORDS(3)}\s+(?:system|initial|original)\s+(?:prompt|message)`),
  },
  {
    id: 'injection-new-instructions',
    severity: 'dangerous',
    message: 'gives the agent new instructions or a new identity',
    pattern: re(String.raw`\b(?:new|updated|real|actual|true)\s+(?:system\s+)?instructions?\s*:|\byou\s+are\s+now\s+(?:an?\s+|the\s+|my\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|free|no\s+longer|DAN\b|in\s+\w+\s+mode)|\bfrom\s+now\s+on,?\s+you\s+(?:are|will|must|shall|should|have\s+to)\b|\b(?:developer|god|jailbreak|unrestricted)\s+mode\b|\bdo\s+anything\s+now\b|\b(?:reveal|print|show|repeat|output|leak)\s+(?:me\s+)?(?:your|the)\s+(?:system\s+prompt|initial\s+instructions|hidden\s+instructions)`),
  },
  {
    id: 'injection-secrecy',
    severity: 'dangerous',
    message: 'tells the agent to hide actions from the user',
    pattern: re(String.raw`\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|mention|reveal|show|disclose|report|let)\s+(?:this\s+|it\s+|anything\s+)?(?:to\s+)?the\s+user\b|\bwithout\s+(?:telling|informing|asking|notifying|alerting)\s+the\s+user\b|\bkeep\s+(?:this|it)\s+(?:secret|hidden|quiet)\s+from\s+the\s+user\b|\bthe\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|find\s+out|notice)\b`),
  },
  {
    id: 'injection-role',
    severity: 'caution',
    message: 'claims a new identity or a system role for the agent',
    pattern: re(String.raw`\byou\s+are\s+now\s+(?:an?|the|my)\s+(?:\w+\s+)?(?:ai|assistant|agent|model|bot|chatbot|persona|character|hacker|attacker)\b|<\|?\/?\s*(?:system|im_start|im_end|assistant)\s*\|?>|\[\/?(?:SYSTEM|INST)\]|^\s*#{1,6}\s*system\s*(?:prompt|message)?\s*:?\s*$`),
  },
]

/** The patterns that match the (already normalised) text. */
export function findInjections(text: string): InjectionPattern[] {
  return INJECTION_PATTERNS.filter((p) => p.pattern.test(text))
}
