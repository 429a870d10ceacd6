import { DEFAULT_CATALOG_ENTRIES } from '@agent-reach/sdk/protocol';
import { type CatalogCapability, catalogFromEntries } from '../plan/index.js';

type Skill = [id: string, description: string, tags: string[], examples: string[]];

/** Thirty distinct capabilities as agent cards would describe them (English and Chinese). */
export const SAMPLE_SKILLS: readonly Skill[] = [
  [
    'word_count',
    'Counts the words and characters of a text.',
    ['word count', '字数', '统计'],
    ['How many words are in this paragraph?', '统计这段文字有多少个字'],
  ],
  [
    'translate',
    'Translates text between Chinese and English.',
    ['translation', '翻译'],
    ['Translate this into English', '把这句话翻译成中文'],
  ],
  [
    'summarize',
    'Summarizes a long text into a few sentences.',
    ['summary', '摘要', '总结'],
    ['Summarize this article', '总结这篇文章'],
  ],
  [
    'unit_convert',
    'Converts units: temperature, length, weight.',
    ['conversion', '换算', '单位'],
    ['Convert 30 celsius to fahrenheit', '把摄氏度换算成华氏度'],
  ],
  [
    'currency_rate',
    'Looks up currency exchange rates.',
    ['exchange rate', '汇率'],
    ['What is the USD to CNY rate?', '美元兑人民币汇率是多少'],
  ],
  [
    'weather',
    'Gives the weather forecast for a city.',
    ['forecast', '天气'],
    ['Weather in Beijing tomorrow', '明天上海天气怎么样'],
  ],
  [
    'sentiment',
    'Classifies the sentiment of reviews as positive or negative.',
    ['sentiment', '情感', '情绪'],
    ['Is this review positive?', '这条评论是正面还是负面'],
  ],
  [
    'spell_check',
    'Finds and fixes spelling mistakes.',
    ['spelling', '错别字', '拼写'],
    ['Fix the typos in this text', '检查这段话的错别字'],
  ],
  [
    'ocr',
    'Reads the text in an image (optical character recognition).',
    ['ocr', '图片文字', '识别'],
    ['Extract the text from this scan', '识别图片里的文字'],
  ],
  [
    'calendar',
    'Schedules meetings and finds free time slots.',
    ['meeting', '日程', '会议'],
    ['Book a meeting with Alice on Friday', '帮我约周五的会议'],
  ],
  [
    'email_draft',
    'Drafts short emails in a given tone.',
    ['email', '邮件'],
    ['Draft an email declining the offer', '写一封婉拒的邮件'],
  ],
  [
    'keyword_extract',
    'Extracts the keywords of a document.',
    ['keywords', '关键词'],
    ['What are the keywords of this text?', '提取这篇文章的关键词'],
  ],
  [
    'date_calc',
    'Computes dates: days between, weekdays, deadlines.',
    ['date', '日期', '天数'],
    ['How many days until Christmas?', '距离春节还有多少天'],
  ],
  [
    'math_solve',
    'Solves arithmetic and algebra problems step by step.',
    ['math', '数学', '方程'],
    ['Solve x^2 - 4 = 0', '解这个方程'],
  ],
  [
    'recipe',
    'Suggests recipes from the ingredients at hand.',
    ['cooking', '菜谱', '做菜'],
    ['What can I cook with eggs and tomatoes?', '用鸡蛋和西红柿能做什么菜'],
  ],
  [
    'flight_status',
    'Tracks the status of a flight by number.',
    ['flight', '航班'],
    ['Is flight CA981 delayed?', '查一下航班状态'],
  ],
  [
    'stock_quote',
    'Quotes current stock prices.',
    ['stock', '股价', '股票'],
    ['What is the AAPL stock price?', '苹果股价多少'],
  ],
  [
    'poem',
    'Writes short poems on a theme.',
    ['poetry', '诗'],
    ['Write a haiku about autumn', '写一首关于秋天的诗'],
  ],
  [
    'name_gen',
    'Generates names for products and pets.',
    ['naming', '起名', '名字'],
    ['Suggest a name for my cat', '给我的猫起个名字'],
  ],
  [
    'regex_build',
    'Builds regular expressions from examples.',
    ['code', 'regex', '正则'],
    ['Write a regex for email addresses', '写一个匹配手机号的正则'],
  ],
  [
    'sql_query',
    'Writes SQL queries from a question about a schema.',
    ['code', 'sql', '数据库'],
    ['Write SQL to count orders per day', '写一条统计订单的SQL'],
  ],
  [
    'csv_clean',
    'Cleans CSV files: trims, dedupes, fixes dates.',
    ['csv', '表格', '清洗'],
    ['Remove duplicate rows from this CSV', '清洗这个表格'],
  ],
  [
    'pdf_extract',
    'Extracts tables and text from PDF files.',
    ['pdf', '提取'],
    ['Get the tables out of this PDF', '从PDF中提取表格'],
  ],
  [
    'qr_code',
    'Creates QR codes for links.',
    ['qr', '二维码'],
    ['Make a QR code for my site', '生成一个二维码'],
  ],
  [
    'color_palette',
    'Suggests color palettes for designs.',
    ['colors', '配色', '颜色'],
    ['A palette for a calm website', '给网页推荐配色'],
  ],
  [
    'fitness_plan',
    'Builds weekly workout routines.',
    ['workout', '健身', '锻炼'],
    ['A 3-day gym routine', '制定一周健身计划'],
  ],
  [
    'travel_itinerary',
    'Plans travel itineraries day by day.',
    ['travel', '旅行', '行程'],
    ['3 days in Kyoto', '安排三天的杭州行程'],
  ],
  [
    'legal_clause',
    'Explains contract clauses in plain words.',
    ['contract', '合同', '条款'],
    ['What does this indemnity clause mean?', '解释这个合同条款'],
  ],
  [
    'grammar_fix',
    'Corrects English grammar.',
    ['grammar', '语法'],
    ['Fix the grammar of this sentence', '修改英文语法'],
  ],
  [
    'timezone',
    'Converts times between time zones.',
    ['time zone', '时区'],
    ['3pm London time in Tokyo?', '北京时间下午三点是纽约几点'],
  ],
];

/** The built-in seven plus the first `count` sample capabilities, as a discovery would hand them over. */
export function sampleSkillCatalog(count = SAMPLE_SKILLS.length): CatalogCapability[] {
  return [
    ...catalogFromEntries(DEFAULT_CATALOG_ENTRIES),
    ...SAMPLE_SKILLS.slice(0, count).map(([id, description, tags, examples]) => ({
      id,
      description,
      tags,
      examples,
      builtin: false,
      coding: tags.includes('code'),
    })),
  ];
}
